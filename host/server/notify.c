/*
 * notify.c — the server's notification hook ([server] notify-command,
 * docs/server.md "Notifications"): a command run with a JSON description
 * on its stdin when a correspondence game wants a player (their turn
 * began, the game ended), so a club can wire e-mail or a chat bot.
 *
 * The event loop only queues the text; a thread of this file runs the
 * command, one run at a time: posix_spawn with the argv fixed by the
 * config (no shell, game data never on the command line), stdin fed from
 * the buffer, stdout and stderr to the server's stderr (its log), and a
 * bounded wait: a run that outlasts the timeout is killed.
 */
#define _GNU_SOURCE /* pipe2, posix_spawn_file_actions_addclosefrom_np */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "server.h"
#include "server_config.h"

extern char **environ;

struct job {
    char *text;
    size_t len;
    struct job *next;
};

struct cas__notify {
    char **argv;                  /* one allocation (cas__notify_argv) */
    int timeout_ms;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake, idle;
    struct job *head, **tail;     /* queued runs, oldest first */
    size_t queued;
    int running, stopping;
};

static int64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Feed text to fd (non-blocking) until done, the reader goes or the
 * deadline passes; fd is closed. */
static void feed(int fd, const char *text, size_t len, int64_t deadline)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    while (len > 0) {
        ssize_t k = write(fd, text, len);
        if (k > 0) {
            text += k;
            len -= (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR)
            continue;
        int left = (int)(deadline - monotonic_ms());
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        if (k < 0 && errno != EAGAIN)
            break; /* EPIPE: the command did not read it all */
        if (left <= 0 || poll(&p, 1, left) <= 0)
            break;
    }
    close(fd);
}

/* Wait for pid until the deadline, then kill it; its status. */
static int reap(pid_t pid, int64_t deadline, int *killed)
{
    int status = 0;
    struct timespec pause = {.tv_nsec = 10 * 1000000};
    *killed = 0;
    for (;;) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid || (got < 0 && errno != EINTR))
            return status;
        if (monotonic_ms() >= deadline) {
            kill(pid, SIGKILL);
            *killed = 1;
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            return status;
        }
        nanosleep(&pause, NULL);
    }
}

/* One run of the command with text on its stdin. */
static void run_one(struct cas__notify *n, const struct job *job)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, pipe_only;
    int in[2], killed;
    pid_t pid;
    if (pipe2(in, O_CLOEXEC) != 0) {
        fprintf(stderr, "castellan serve: notify-command: no pipe: %s\n", strerror(errno));
        return;
    }
    sigemptyset(&none);
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
    /* Nothing of the server (sockets, the store) reaches the command. */
    posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &pipe_only);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int rc = posix_spawn(&pid, n->argv[0], &fa, &attr, n->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(in[0]);
    if (rc != 0) {
        close(in[1]);
        fprintf(stderr, "castellan serve: notify-command %s could not start: %s\n",
                n->argv[0], strerror(rc));
        return;
    }
    int64_t deadline = monotonic_ms() + n->timeout_ms;
    feed(in[1], job->text, job->len, deadline);
    int status = reap(pid, deadline, &killed);
    if (killed)
        fprintf(stderr, "castellan serve: notify-command %s ran past %d ms and was "
                "killed\n", n->argv[0], n->timeout_ms);
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "castellan serve: notify-command %s failed (%s %d)\n", n->argv[0],
                WIFEXITED(status) ? "exit status" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

static void *notify_thread(void *arg)
{
    struct cas__notify *n = arg;
    sigset_t pipe_only;
    /* A command that leaves without reading its stdin must not take the
     * server with it: this thread's writes get EPIPE instead. */
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, NULL);
    pthread_mutex_lock(&n->lock);
    for (;;) {
        while (!n->head && !n->stopping)
            pthread_cond_wait(&n->wake, &n->lock);
        if (!n->head)
            break;
        struct job *job = n->head;
        if (!(n->head = job->next))
            n->tail = &n->head;
        n->queued--;
        n->running = 1;
        pthread_mutex_unlock(&n->lock);
        run_one(n, job);
        struct timespec now = {0};
        while (sigtimedwait(&pipe_only, NULL, &now) == SIGPIPE)
            ; /* the EPIPE's signal, pending while blocked */
        free(job->text);
        free(job);
        pthread_mutex_lock(&n->lock);
        n->running = 0;
        if (!n->head)
            pthread_cond_broadcast(&n->idle);
    }
    pthread_mutex_unlock(&n->lock);
    return NULL;
}

int cas__notify_new(const char *command, int timeout_ms, struct cas__notify **out, char *err,
                    size_t errlen)
{
    struct cas__notify *n = calloc(1, sizeof *n);
    *out = NULL;
    if (!n) {
        snprintf(err, errlen, "out of memory");
        return CAS_ENOMEM;
    }
    int rc = cas__notify_argv(command, &n->argv, err, errlen);
    if (rc) {
        free(n);
        return rc;
    }
    n->timeout_ms = timeout_ms > 0 ? timeout_ms : CAS__NOTIFY_TIMEOUT_MS;
    n->tail = &n->head;
    pthread_mutex_init(&n->lock, NULL);
    pthread_cond_init(&n->wake, NULL);
    pthread_cond_init(&n->idle, NULL);
    if (pthread_create(&n->thread, NULL, notify_thread, n) != 0) {
        snprintf(err, errlen, "cannot start the notify-command's thread");
        pthread_cond_destroy(&n->idle);
        pthread_cond_destroy(&n->wake);
        pthread_mutex_destroy(&n->lock);
        free(n->argv);
        free(n);
        return CAS_ENOMEM;
    }
    *out = n;
    return CAS_OK;
}

void cas__notify_post(struct cas__notify *n, struct cas__jw *w)
{
    struct job *job = malloc(sizeof *job);
    char *text = w->b.failed ? NULL : strndup(cas__jw_text(w), cas__jw_len(w));
    cas__jw_free(w);
    cas__jw_init(w);
    if (!job || !text) {
        free(job);
        free(text);
        fprintf(stderr, "castellan serve: notify-command: out of memory; a notification "
                "is lost\n");
        return;
    }
    *job = (struct job){.text = text, .len = strlen(text)};
    pthread_mutex_lock(&n->lock);
    if (n->queued >= CAS__NOTIFY_MAX_QUEUED) {
        pthread_mutex_unlock(&n->lock);
        fprintf(stderr, "castellan serve: notify-command: %d runs wait already (is it "
                "slow?); this notification is dropped: %.200s\n", CAS__NOTIFY_MAX_QUEUED, text);
        free(text);
        free(job);
        return;
    }
    *n->tail = job;
    n->tail = &job->next;
    n->queued++;
    pthread_cond_signal(&n->wake);
    pthread_mutex_unlock(&n->lock);
}

void cas__notify_drain(struct cas__notify *n)
{
    pthread_mutex_lock(&n->lock);
    while (n->head || n->running)
        pthread_cond_wait(&n->idle, &n->lock);
    pthread_mutex_unlock(&n->lock);
}

void cas__notify_free(struct cas__notify *n)
{
    if (!n)
        return;
    pthread_mutex_lock(&n->lock);
    n->stopping = 1;
    pthread_cond_signal(&n->wake);
    pthread_mutex_unlock(&n->lock);
    pthread_join(n->thread, NULL); /* the queued runs first, each bounded */
    pthread_cond_destroy(&n->idle);
    pthread_cond_destroy(&n->wake);
    pthread_mutex_destroy(&n->lock);
    free(n->argv);
    free(n);
}
