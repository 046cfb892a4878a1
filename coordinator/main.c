/* rackbench's entry point; everything else lives in the rb_coordinator library. */
#include "rb_cli.h"

int main(int argc, char **argv)
{
    return rb_cli_main(argc, argv);
}
