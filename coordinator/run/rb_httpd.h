/* The HTTP server of `rackbench run --metrics ADDR`: libmicrohttpd answers
 * from a thread of its own, the run loop hands it whole texts (the metrics
 * and the live page), swapped under a mutex and copied into each answer. */
#ifndef RB_HTTPD_H
#define RB_HTTPD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rb_err.h"

typedef struct rb_httpd rb_httpd_t;

/* What the server answers: /metrics and /. */
typedef enum { RB_HTTPD_METRICS = 0, RB_HTTPD_PAGE = 1 } rb_httpd_doc_t;

/* Reads ADDR (PORT, :PORT, HOST:PORT, [V6]:PORT; HOST an IP address,
 * localhost or *) into addr. A lone port is loopback. *loopback says whether
 * only this machine can reach it. 0, or -EINVAL with err naming ADDR. */
int rb_httpd_parse_addr(const char *text, struct sockaddr_storage *addr, int *loopback,
                        rb_err_t *err);

/* Starts serving on the address text names (read as rb_httpd_parse_addr
 * reads it); both documents answer 503 until first set. NULL with err set
 * (naming the address) when it is malformed or cannot be listened on. */
rb_httpd_t *rb_httpd_new(const char *text, rb_err_t *err);

/* The port it listens on (the system's choice for port 0). */
uint16_t rb_httpd_port(const rb_httpd_t *h);

/* Replaces document doc with len bytes of text (copied). 0 or -ENOMEM. */
int rb_httpd_set(rb_httpd_t *h, rb_httpd_doc_t doc, const char *text, size_t len);

/* Makes text (copied) the final /metrics: the run has ended. From now on
 * each scrape of it sent whole counts for its scraper's address.
 * *scrapers: the addresses that scraped /metrics before (at most 16 are
 * kept), which rb_httpd_settled waits for. 0 or -ENOMEM. */
int rb_httpd_set_final(rb_httpd_t *h, const char *text, size_t len, unsigned *scrapers);

/* 1 once the final /metrics has been sent whole to a scraper, and to each
 * address that scraped it before it was final; 0 until then. */
int rb_httpd_settled(rb_httpd_t *h);

/* Stops the server (waits for answers in flight); safe twice, nulls *hp. */
void rb_httpd_destroy(rb_httpd_t **hp);

#endif
