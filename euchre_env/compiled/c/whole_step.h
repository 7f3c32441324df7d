/* The single-seat whole step (euchre_env/envs/whole_step.py): SingleSeatVectorEnv.step in one C call for opponents
   whose decision is compiled (an agent's Decision, passed in a capsule: the rule-based agent's).

   Each game applies the learner's action, then plays on, its opponents deciding by the Decision, until a learner
   seat is to act; a hand that ends is accounted to the learner (engine.h's account_hand, as the env's Python
   rounds account it) and dealt on as the vector env deals (hand_outcome, stream_uniforms, deal_on). Reference:
   the env's rounds (SingleSeatVectorEnv with _whole_steps = False); proven equal to them by
   tests/envs/test_single_seat_vector.py and to SingleSeatEnv by
   tests/differential/test_single_seat_vector_vs_single_seat.py.

   Included by core.c (a Batch method): it uses core.c's argument helpers. */
#ifndef EUCHRE_WHOLE_STEP_H
#define EUCHRE_WHOLE_STEP_H

/* The learner's side of a step (whole_step.Learner, in its field order): its actions, its seats, and the env's
   accounts and this step's ends, written in place. */
typedef struct {
    const int64_t *actions; /* [n]: this step's actions, in each game's frame (checked legal by the env) */
    const uint8_t *observe; /* [n, 4]: the learner's seats */
    int64_t team;           /* the learner's team */
    float *rewards, *pending;
    uint8_t *decided;
    int64_t *acting;        /* [n]: the learner seat of each game's decision */
    uint8_t *terminated, *truncated, *has_final;
    float *final_obs;       /* [n, final_width] */
    int64_t final_width;
} Learner;

static int learner_from(PyObject *bundle, const BatchObject *self, Held *h, Learner *L)
{
    const int64_t n = self->s.n;
    if (!PySequence_Check(bundle) || PySequence_Size(bundle) != 11) {
        PyErr_SetString(PyExc_TypeError, "learner must be a whole_step.Learner bundle of 11 fields");
        return -1;
    }
    PyObject *item[11] = {NULL};
    int bad = 1;
    for (int i = 0; i < 11; i++)
        if ((item[i] = PySequence_GetItem(bundle, i)) == NULL)
            goto done;
    if (!(L->actions = array_arg(h, item[0], "actions", KIND_INT, 8, 1, 0, n, ANY, ANY))
            || !(L->observe = array_arg(h, item[1], "observe", KIND_BOOL, 1, 2, 0, n, 4, ANY))
            || int_arg(item[2], "team", &L->team) < 0
            || !(L->rewards = array_arg(h, item[3], "rewards", KIND_FLOAT, 4, 1, 1, n, ANY, ANY))
            || !(L->pending = array_arg(h, item[4], "pending", KIND_FLOAT, 4, 1, 1, n, ANY, ANY))
            || !(L->decided = array_arg(h, item[5], "decided", KIND_BOOL, 1, 1, 1, n, ANY, ANY))
            || !(L->acting = array_arg(h, item[6], "acting", KIND_INT, 8, 1, 1, n, ANY, ANY))
            || !(L->terminated = array_arg(h, item[7], "terminated", KIND_BOOL, 1, 1, 1, n, ANY, ANY))
            || !(L->truncated = array_arg(h, item[8], "truncated", KIND_BOOL, 1, 1, 1, n, ANY, ANY))
            || !(L->has_final = array_arg(h, item[9], "has_final", KIND_BOOL, 1, 1, 1, n, ANY, ANY))
            || !(L->final_obs = array_arg(h, item[10], "final_obs", KIND_FLOAT, 4, 2, 1, n,
                                          self->e.with_obs ? self->t.obs_size : ANY, ANY)))
        goto done;
    L->final_width = last_dim(h, 1);
    bad = 0;
done:
    for (int i = 0; i < 11; i++)
        Py_XDECREF(item[i]);
    return bad ? -1 : 0;
}

/* Game g's hand is over: the learner's account of it, with its final observation if its episode ended, then the
   next deal from the game's own stream of uniforms (whole_step.py's _hand_over in 0.2). */
static void learner_hand_over(BatchObject *self, Game *G, int64_t g, const Learner *L, Scratch *w)
{
    const Tables *t = &self->t;
    double team0;
    int ended, cut;
    hand_outcome(G->st, &self->e, &team0, &ended, &cut);
    int over = ended || cut;
    int end = account_hand(g, L->team == 0 ? team0 : -team0, over, cut, L->rewards, L->pending, L->decided,
                           L->has_final, L->terminated, L->truncated);
    if (end == LEARNER_END && self->e.with_obs)
        encode_seat(G, L->acting[g], L->final_obs + g * L->final_width, w->raw, t);
    stream_uniforms(self->d.streams + g, w->u, self->d.npack + 1);
    deal_on(G, &self->d, g, over, w->u, t);
}

PyDoc_STRVAR(single_seat_step_doc,
"single_seat_step(decision, learner, codes, obs, mask, lo=0, hi=num_games, c=0)\n--\n\n"
"One step of the games lo:hi: each applies the learner's learner.actions[g] (in its frame, legal), then plays on,\n"
"its opponents deciding by decision (a capsule holding an agent's Decision; c: the decision's slice, below the\n"
"slices its scratch was made for) until a learner seat is to act, whose observation and mask are written (obs[g],\n"
"mask[g], learner.acting[g]) as step_games writes them; a hand that ends is accounted into learner and dealt on.\n"
"The games move in rounds: every move (the learner's in the first), then every waiting game's legal mask and\n"
"decision. codes[g]: 0, or the code of a decision that failed (a bug), the game left where it was.");

static PyObject *Batch_single_seat_step(BatchObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Held h = {.n = 0};
    int64_t lo, hi, c = 0, width = 0, n = self->s.n;
    PyObject *result = NULL;
    Scratch w = {0};
    int64_t *active = NULL, *picks = NULL;
    uint8_t *amasks = NULL;
    const Tables *t = &self->t;
    Learner L = {0};
    if (arg_count("single_seat_step(decision, learner, codes, obs, mask, lo, hi, c)", nargs, 5, 8) < 0
            || needs(self, 1, "single_seat_step") < 0)
        return NULL;
    const Decision *decision = PyCapsule_GetPointer(args[0], DECISION_CAPSULE);
    if (decision == NULL)
        return NULL;
    const int with_obs = self->e.with_obs;
    if (learner_from(args[1], self, &h, &L) < 0)
        goto done;
    int64_t *codes = array_arg(&h, args[2], "codes", KIND_INT, 8, 1, 1, n, ANY, ANY);
    float *obs = codes ? obs_arg(&h, args[3], self, with_obs, &width) : NULL;
    uint8_t *mask = obs ? mask_arg(&h, args[4], self, n) : NULL;
    if (mask == NULL || range_args(args, nargs, 5, n, &lo, &hi) < 0
            || (nargs > 7 && int_arg(args[7], "c", &c) < 0) || check_actions(L.actions, lo, hi, t->n_actions) < 0
            || scratch_new(&w, t, self->d.npack + 1, 0) < 0)
        goto done;
    int64_t k = hi - lo, A = t->n_actions;
    active = malloc((size_t)(k ? k : 1) * sizeof *active);
    picks = malloc((size_t)(k ? k : 1) * sizeof *picks);
    amasks = malloc((size_t)(k ? k : 1) * (size_t)A);
    if (active == NULL || picks == NULL || amasks == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (int64_t g = lo; g < hi; g++) { /* the learner's moves come first: every game has one */
        learner_decides(g, L.rewards, L.pending, L.decided);
        codes[g] = 0;
        active[g - lo] = g;
        picks[g - lo] = t->to_abs[self->s.st[g * NF + FRAME] * t->to_abs_c + L.actions[g]];
    }
    while (k > 0) { /* rounds: every move (the learner's and the opponents' alike), then the next decisions */
        int64_t m = 0;
        for (int64_t j = 0; j < k; j++) { /* a game still waiting on an opponent moves down the list */
            int64_t g = active[j], a = picks[j];
            if (a < 0) {
                codes[g] = a;
                continue;
            }
            Game G = game_at(&self->s, g);
            if (apply(&G, a, t))
                learner_hand_over(self, &G, g, &L, &w);
            int32_t seat = G.st[CUR];
            if (L.observe[4 * g + (seat & 3)]) {
                L.acting[g] = seat;
                decide(&G, obs + g * width, mask + g * A, w.raw, w.amask, t, with_obs);
            } else {
                active[m++] = g;
            }
        }
        k = m;
        for (int64_t j = 0; j < k; j++) {
            Game G = game_at(&self->s, active[j]);
            legal_mask(&G, t, amasks + j * A);
        }
        for (int64_t j = 0; j < k; j++)
            picks[j] = decision->decide(decision->policy, c, &self->s, active[j], amasks + j * A);
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    free(active);
    free(picks);
    free(amasks);
    free(w.block);
    release(&h);
    return result;
}

#endif
