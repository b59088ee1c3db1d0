/*
 * serve_process.h — `castellan serve` of the build tree run as a child for
 * the end-to-end and load tests: started on 127.0.0.1 port 0 with its own
 * store and client folder, its port read from its first line on stderr.
 */
#ifndef CAS_TEST_SERVE_PROCESS_H
#define CAS_TEST_SERVE_PROCESS_H

#include <sys/types.h>

struct serve_process {
    pid_t pid;
    int port;
    char dir[512];       /* the test's folder: s.db and www/ */
    char db[600];
};

/* Start a server in folder dir (created if needed; a store already there
 * is the server's, as after a restart); extra arguments (NULL-terminated)
 * are added (--listen among them replaces 127.0.0.1:0).  Fails the test on
 * error. */
void serve_forget(const char *dir); /* remove dir's store: start afresh */
void serve_start(struct serve_process *p, const char *dir, const char *const *extra);
/* SIGTERM and wait: the exit status. */
int serve_stop(struct serve_process *p);
/* SIGKILL and wait: 0 with the wait status in *status, -1 if it failed. */
int serve_kill(struct serve_process *p, int *status);
/* GET path over HTTP/1.1 on the server; the status code, the body in
 * body[0..cap) (cut). */
int serve_http_get(const struct serve_process *p, const char *path, char *body, size_t cap);
/* A TCP connection to the server of p (the test fails if it cannot be
 * made): its descriptor, the caller's to close. */
int serve_connect_tcp(const struct serve_process *p);
/* Read exactly len bytes of fd into out; the test fails if the stream ends
 * or fails first (a receive timeout set on fd turns a hang into that). */
void serve_read_exactly(int fd, void *out, size_t len);
/* A WebSocket (castellan.v1, no extension offered) upgraded on a fresh
 * connection and left open, its handshake answer read and nothing more,
 * reads bounded by a receive timeout: its descriptor, the caller's to
 * close.  Fails the test if the server does not switch protocols. */
int serve_open_websocket(const struct serve_process *p);
/* Append to out a masked client frame of opcode (0x1 text, 0xA pong)
 * carrying text (under 126 bytes): its length. */
size_t serve_client_frame(unsigned char *out, unsigned opcode, const char *text);
/* Read the next frame of fd, a whole unfragmented short text frame, into
 * text (cap bytes, NUL-terminated); the test fails on anything else. */
void serve_next_text(int fd, char *text, size_t cap);
/* Send request (whole, as written) on a fresh connection and read the
 * answer until the server closes it into response[0..cap) (cut): the
 * status code, 0 when there was none. */
int serve_http(const struct serve_process *p, const char *request, char *response, size_t cap);

/* The sockets pid holds open (listening and connected). */
size_t serve_sockets(pid_t pid);

/* A TCP socket listening: its local address ("127.0.0.1", "::1",
 * "0.0.0.0", "::") and port. */
struct serve_listener {
    char addr[64];
    int port;
};
/* The TCP sockets pid listens on, from /proc/net/tcp{,6}: how many (at
 * most cap are written to out). */
size_t serve_listening(pid_t pid, struct serve_listener *out, size_t cap);

#endif
