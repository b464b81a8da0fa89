/* nemos's <unistd.h>: declared so that programs including it read; nemos gives none of
 * these calls a meaning and refuses them by name. */
#ifndef NEMOS_UNISTD_H
#define NEMOS_UNISTD_H

#include <stddef.h>

typedef long ssize_t;
typedef int pid_t;

unsigned sleep(unsigned seconds);
int usleep(unsigned microseconds);
pid_t getpid(void);

#endif
