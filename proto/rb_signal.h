/* How rackbench's programs take SIGINT and SIGTERM: on_stop (which only sets
 * a flag) for both, in place of czmq's own handler, and SIGPIPE ignored. */
#ifndef RB_SIGNAL_H
#define RB_SIGNAL_H

void rb_signals_catch(void (*on_stop)(int));

#endif
