/* cli/cmd_verify.c: stackprint verify (to be written; see man/stackprint-verify.1). */
#include <stdio.h>

#include "commands.h"

int cmd_verify(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "stackprint: verify: not implemented in this build\n");
    return SP_EXIT_USAGE;
}
