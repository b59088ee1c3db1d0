/*
 * worker_main.c — castellan-worker, the program castellan starts for code
 * it did not write (host/loader/spawn.h): it reads what to do from its
 * socket and never returns through exit (no atexit handler, no leak
 * check: the sandbox would refuse what they do).
 */
#include <unistd.h>

#include "worker.h"

int main(void)
{
    _exit(cas__worker_main(CAS__SPAWN_FD));
}
