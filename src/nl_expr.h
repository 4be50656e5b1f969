/* nl_expr.h -- (stub) */
