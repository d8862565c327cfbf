/* cli/cmd_sign.c: stackprint sign (to be written; see man/stackprint-sign.1). */
#include <stdio.h>

#include "commands.h"

int cmd_sign(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "stackprint: sign: not implemented in this build\n");
    return SP_EXIT_USAGE;
}
