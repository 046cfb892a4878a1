/* rackbench-agent's entry point; everything else lives in the rb_agent library. */
#include "rb_agent_cli.h"

int main(int argc, char **argv)
{
    return rb_agent_cli_main(argc, argv);
}
