/* nemos's <threads.h>: C11's threads as far as nemos reads them. */
#ifndef NEMOS_THREADS_H
#define NEMOS_THREADS_H

typedef int thrd_t;
typedef int (*thrd_start_t)(void *);
typedef int mtx_t;

enum { thrd_success, thrd_error, thrd_nomem, thrd_timedout, thrd_busy };
enum { mtx_plain };

int thrd_create(thrd_t *thread, thrd_start_t start, void *arg);
int thrd_join(thrd_t thread, int *result);
void thrd_exit(int result);
thrd_t thrd_current(void);
void thrd_yield(void);
int mtx_init(mtx_t *mutex, int type);
int mtx_lock(mtx_t *mutex);
int mtx_unlock(mtx_t *mutex);

#endif
