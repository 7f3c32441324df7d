/* A kernel's rows on the OpenMP team the process already has: torch's.
 *
 * During training torch runs its operations on an OpenMP team (libgomp on Linux), whose threads spin for a while
 * after each operation, waiting for the next. Slices handed to Python threads between two torch operations then
 * wait for those spinning threads to give up their cores: the sparse first layer took 11.6 ms a 4,096-row
 * minibatch on 2 cores that way, against 7.1 ms when the team sleeps at once (OMP_WAIT_POLICY=PASSIVE), which in
 * turn slows torch's own operations. Running the slices on that same team instead costs no hand-over at all: its
 * threads are the ones spinning, and pick the work up at once.
 *
 * The team is found, not linked: GOMP_parallel and the thread numbers are looked up among the symbols the process
 * has loaded (torch loads its libgomp into the global namespace; LLVM's libomp exports the same entry points).
 * Without them (no torch imported, or a platform without dlsym), team_threads() is 0 and the Python side hands the
 * slices to Python threads as before. Each slice is computed whole by one thread, as on Python threads, so the
 * results do not depend on which runs them. */
#if defined(__unix__) || defined(__APPLE__)
#include <dlfcn.h>
#define HAVE_DLSYM 1
#endif

/* A kernel over items lo..hi of a batch (rows, or the weight gradient's tasks), its arguments in ctx. */
typedef void (*Part)(const void *ctx, Py_ssize_t lo, Py_ssize_t hi);

typedef struct {
    Part part;
    const void *ctx;
    Py_ssize_t lo, hi;
} Team;

static void (*gomp_parallel)(void (*)(void *), void *, unsigned, unsigned);
static int (*omp_thread_num)(void);
static int (*omp_num_threads)(void);

/* Whether the process has an OpenMP team to run slices on (looked up until found: torch may be imported after this
 * module). */
static int team_found(void)
{
#ifdef HAVE_DLSYM
    if (!gomp_parallel) {
        *(void **)&omp_thread_num = dlsym(RTLD_DEFAULT, "omp_get_thread_num");
        *(void **)&omp_num_threads = dlsym(RTLD_DEFAULT, "omp_get_num_threads");
        if (omp_thread_num && omp_num_threads)
            *(void **)&gomp_parallel = dlsym(RTLD_DEFAULT, "GOMP_parallel");
    }
#endif
    return gomp_parallel != NULL;
}

static void team_member(void *data)
{
    const Team *t = data;
    Py_ssize_t n = t->hi - t->lo, c = omp_thread_num(), threads = omp_num_threads();
    t->part(t->ctx, t->lo + n * c / threads, t->lo + n * (c + 1) / threads);
}

/* part over lo..hi: on `threads` threads of the team when threads > 1 (the caller is one of them), else here. */
static void run_parts(Part part, const void *ctx, Py_ssize_t lo, Py_ssize_t hi, int threads)
{
    if (threads > 1 && hi - lo > 1 && team_found()) {
        Team t = {part, ctx, lo, hi};
        gomp_parallel(team_member, &t, (unsigned)threads, 0);
    } else {
        part(ctx, lo, hi);
    }
}
