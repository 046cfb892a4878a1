/* rackbench-agent's entry point; everything else lives in the rb_agent library. */
#include "rb_agent.h"

int main(int argc, char **argv)
{
    return rb_agent_main(argc, argv);
}
