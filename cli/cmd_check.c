/* cli/cmd_check.c: stackprint check (to be written; see man/stackprint-check.1). */
#include <stdio.h>

#include "commands.h"

int cmd_check(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "stackprint: check: not implemented in this build\n");
    return SP_EXIT_USAGE;
}
