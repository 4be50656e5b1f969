/* nl_deck.h -- (stub) */
