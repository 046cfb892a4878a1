/* SIGINT, SIGTERM and SIGPIPE for rackbench's programs (rb_signal.h). */
#include "rb_signal.h"

#include <czmq.h>
#include <signal.h>

void rb_signals_catch(void (*on_stop)(int))
{
    zsys_handler_set(NULL);
    struct sigaction sa = {.sa_handler = on_stop};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}
