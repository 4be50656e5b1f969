/* fuzz_netlist.c -- libFuzzer harness over the netlist front end.
 *
 * One input = one netlist. Without a NUL byte it is read from memory
 * (nsc_netlist_read_string); with one, from a memfd through the file reader
 * (nsc_netlist_read on /proc/self/fd/N), which keeps every byte and also
 * exercises .include relative to the file. Built with -DFUZZ_ASSEMBLE the
 * harness goes on to nsc_lcs_assemble (TRAN, OP and UIC) and to every probe of
 * a netlist that elaborates, since that is library code fed by the front end too.
 *
 * Properties checked besides "no crash, no leak, no UB, no hang":
 *   status == NSC_OK  <=>  circuit != NULL  and  report.error == NULL;
 *   every error is one line "file:line:col: error: ..." or "nscircuit: error: ...";
 *   only NSC_ENETLIST, NSC_EIO, NSC_ENOMEM are returned by the front end. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "netlist/netlist.h"
#include "lcs/lcs.h"

static void check_report(const nsc_report *r, nsc_status st)
{
    if (st != NSC_OK && st != NSC_ENETLIST && st != NSC_EIO && st != NSC_ENOMEM && st != NSC_ESIM)
        abort();
    if ((st == NSC_OK) != (r->error == NULL)) abort();
    if (r->error) {
        if (strchr(r->error, '\n')) abort();
        if (!strstr(r->error, "error: ")) abort();
    }
}

#ifdef FUZZ_ASSEMBLE
static void assemble(const nsc_circuit *c)
{
    static const nsc_asm_mode modes[] = { NSC_ASM_TRAN, NSC_ASM_OP, NSC_ASM_UIC };
    for (int k = 0; k < 3; k++) {
        nsc_report r;
        nsc_report_init(&r);
        nsc_lcs *L = NULL;
        nsc_status st = nsc_lcs_assemble(c, modes[k], 1e-12, &L, &r);
        check_report(&r, st);
        if (!st) {
            for (int p = 0; p < c->job.nsave; p++) {
                nsc_lin f;
                memset(&f, 0, sizeof f);
                nsc_report pr;
                nsc_report_init(&pr);
                if (!nsc_lcs_probe(L, c, &c->job.save[p], &f, &pr)) nsc_lin_free(&f);
                nsc_report_free(&pr);
            }
        }
        nsc_lcs_free(L);
        nsc_report_free(&r);
    }
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nsc_report r;
    nsc_report_init(&r);
    nsc_circuit *c = NULL;
    nsc_status st;
    if (memchr(data, 0, size)) {
        int fd = memfd_create("fuzz.cir", 0);
        if (fd < 0) return 0;
        if (write(fd, data, size) != (ssize_t)size) {
            close(fd);
            return 0;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        st = nsc_netlist_read(path, NULL, 0, &c, &r);
        close(fd);
    } else {
        char *s = malloc(size + 1);
        if (!s) return 0;
        memcpy(s, data, size);
        s[size] = 0;
        st = nsc_netlist_read_string(s, "fuzz.cir", NULL, 0, &c, &r);
        free(s);
    }
    check_report(&r, st);
    if ((st == NSC_OK) != (c != NULL)) abort();
#ifdef FUZZ_ASSEMBLE
    if (c) assemble(c);
#endif
    nsc_circuit_free(c);
    nsc_report_free(&r);
    return 0;
}
