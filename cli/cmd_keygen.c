/* cli/cmd_keygen.c: stackprint keygen (to be written; see man/stackprint-keygen.1). */
#include <stdio.h>

#include "commands.h"

int cmd_keygen(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "stackprint: keygen: not implemented in this build\n");
    return SP_EXIT_USAGE;
}
