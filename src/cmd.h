/* cmd.h -- subcommands of the nscircuit program (not part of the library). */
#ifndef NSC_CMD_H
#define NSC_CMD_H

/* `nscircuit compare OURS REFERENCE [options]`: argv[0] is "compare". Prints the
 * comparison on stdout; returns the exit status: 0 every signal within --tol,
 * 1 some signal is not, 2 usage error / unreadable file / nothing to compare. */
int nsc_cmd_compare(int argc, char **argv);

/* The usage text of `nscircuit compare` (also in `nscircuit --help`). */
extern const char nsc_compare_usage[];

#endif
