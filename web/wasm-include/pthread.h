/* pthread.h for the playground's wasm32 build (make web): wasi-libc has no threads. The
 * core runs on one thread there (no rp_pool: the page passes NULL), so the mutexes and
 * condition variables do nothing and pthread_create fails, as when a system refuses a
 * thread (rp_pool_new then reports it); pthread_once runs its function the first time.
 * Only what the core uses. */
#ifndef RP_WASM_PTHREAD_H
#define RP_WASM_PTHREAD_H

#include <errno.h>
#include <time.h>

typedef int pthread_t;
typedef int pthread_attr_t;
typedef int pthread_mutex_t;
typedef int pthread_mutexattr_t;
typedef int pthread_cond_t;
typedef int pthread_condattr_t;
typedef int pthread_once_t;

#define PTHREAD_MUTEX_INITIALIZER 0
#define PTHREAD_COND_INITIALIZER 0
#define PTHREAD_ONCE_INIT 0

static inline int pthread_once(pthread_once_t *once, void (*fn)(void))
{
    if (!*once) {
        *once = 1;
        fn();
    }
    return 0;
}

static inline int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
                                 void *arg)
{
    (void)t, (void)a, (void)fn, (void)arg;
    return EAGAIN;
}
static inline int pthread_join(pthread_t t, void **ret)
{
    (void)t, (void)ret;
    return ESRCH;
}
static inline pthread_t pthread_self(void)
{
    return 1;
}
static inline int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
    (void)a;
    *m = 0;
    return 0;
}
static inline int pthread_mutex_destroy(pthread_mutex_t *m)
{
    (void)m;
    return 0;
}
static inline int pthread_mutex_lock(pthread_mutex_t *m)
{
    (void)m;
    return 0;
}
static inline int pthread_mutex_unlock(pthread_mutex_t *m)
{
    (void)m;
    return 0;
}
static inline int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
    (void)a;
    *c = 0;
    return 0;
}
static inline int pthread_cond_destroy(pthread_cond_t *c)
{
    (void)c;
    return 0;
}
static inline int pthread_cond_signal(pthread_cond_t *c)
{
    (void)c;
    return 0;
}
static inline int pthread_cond_broadcast(pthread_cond_t *c)
{
    (void)c;
    return 0;
}
static inline int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    (void)c, (void)m;
    return 0;
}
static inline int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                         const struct timespec *t)
{
    (void)c, (void)m, (void)t;
    return ETIMEDOUT;
}

#endif
