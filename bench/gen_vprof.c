/* gen_vprof: write a large, deterministic VProf capture for `make bench`.
 *
 *   gen_vprof OUT FRAMES NODES [SPIKE_EVERY]
 *
 * A tree of NODES nodes (root included) over the 31 default budget groups
 * plus 3 custom ones (group ids from 0, declared in frame 1 as the public
 * engines do). Most nodes exist from frame 1; about 5 % (leaves) appear in the
 * middle of the capture. Times are noisy around a ~15 ms frame; about 15 % of the
 * nodes are called 255 times or more (escaped calls); every 4,999th frame one
 * node takes ~300 ms (escaped time) so hitch detection has work to do
 * (SPIKE_EVERY, default 4999: the long shape of `make bench` spikes every
 * 500 frames). The same arguments always give the same bytes (xorshift
 * PRNG, fixed seed). At 300,000 x 1,000 the file is about 1 GB. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof_write.h"

typedef struct gnode {
    uint32_t parent;   /* slot */
    uint32_t mean_us;  /* mean self time */
    uint32_t calls_lo, calls_span;
    uint32_t start;    /* first frame (0-based) the node exists in */
    int32_t group;
} gnode;

static uint32_t rng_state = 0x2545F491u;

static uint32_t rng_next(void)
{
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

static void gen_die(const char *what, const vp_error *err)
{
    fprintf(stderr, "gen_vprof: %s: %s\n", what, err->msg);
    exit(1);
}

static long gen_arg(const char *s, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 1 || v > 100000000) {
        fprintf(stderr, "gen_vprof: %s must be a positive integer, got '%s'\n", what, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: gen_vprof OUT FRAMES NODES [SPIKE_EVERY]\n");
        return 2;
    }
    uint32_t spike_every = argc == 5 ? (uint32_t)gen_arg(argv[4], "SPIKE_EVERY") : 4999;
    const char *out = argv[1];
    uint32_t frames = (uint32_t)gen_arg(argv[2], "FRAMES");
    uint32_t nnodes = (uint32_t)gen_arg(argv[3], "NODES");
    if (nnodes < 2)
        nnodes = 2;

    vp_vprof_wopts o;
    vp_vprof_wopts_init(&o);
    vp_error err;
    vp_vprof_writer *w = vp_vprof_writer_open(out, &o, &err);
    if (!w)
        gen_die("open", &err);

    static const char *custom[] = {"Scripting", "AI_Pathing", "Streaming"};
    int32_t ngroups = VP_VPROF_WRITER_DEFAULTS + 3;
    for (int i = 0; i < VP_VPROF_WRITER_DEFAULTS; i++)
        if (vp_vprof_writer_group(w, vp_vprof_writer_defaults[i].name,
                                  vp_vprof_writer_defaults[i].flags, NULL, &err) != VP_OK)
            gen_die("group", &err);
    for (int i = 0; i < 3; i++)
        if (vp_vprof_writer_group(w, custom[i], 4, NULL, &err) != VP_OK)
            gen_die("group", &err);

    /* Slot 0 is the root; slot 1 is CEngine::Frame; every other node hangs
     * under a random earlier node, biased towards recent ones so the tree
     * gets some depth without becoming a chain. A late node's parent is
     * also late or older, never younger, so parents always exist first. */
    gnode *g = calloc(nnodes, sizeof *g);
    vp_vprof_wtiming *t = calloc(nnodes, sizeof *t);
    uint64_t *incl = calloc(nnodes, sizeof *incl);
    if (!g || !t || !incl) {
        fprintf(stderr, "gen_vprof: out of memory\n");
        return 1;
    }
    uint32_t late_at = frames / 2;
    for (uint32_t i = 1; i < nnodes; i++) {
        gnode *n = &g[i];
        if (i == 1) {
            n->parent = 0;
        } else {
            uint32_t back = 1 + rng_next() % (i < 24 ? i - 1 : 24);
            n->parent = rng_next() % 4 == 0 ? 1 + rng_next() % (i - 1) : i - back;
        }
        n->group = (int32_t)(rng_next() % (uint32_t)ngroups);
        /* Self times: a few heavy nodes, many light ones; the sum over
         * 1,000 nodes lands near 14 ms. */
        uint32_t r = rng_next() % 100;
        n->mean_us = r < 5 ? 100 + rng_next() % 120 : r < 40 ? 5 + rng_next() % 20
                                                           : rng_next() % 8;
        if (rng_next() % 100 < 15) {
            n->calls_lo = 255 + rng_next() % 400;
            n->calls_span = 64;
        } else {
            n->calls_lo = 1;
            n->calls_span = 1 + rng_next() % 8;
        }
    }
    /* About 5 % of the leaves appear mid-capture: leaves only, so lateness
     * never cascades down a subtree. */
    uint8_t *has_child = calloc(nnodes, 1);
    if (!has_child) {
        fprintf(stderr, "gen_vprof: out of memory\n");
        return 1;
    }
    for (uint32_t i = 1; i < nnodes; i++)
        has_child[g[i].parent] = 1;
    for (uint32_t i = 2; i < nnodes; i++)
        if (!has_child[i] && rng_next() % 100 < 8)
            g[i].start = late_at;
    free(has_child);
    /* Add the frame-1 nodes now; the late ones when their frame comes. */
    char name[64];
    for (uint32_t i = 1; i < nnodes; i++) {
        if (g[i].start != 0)
            continue;
        snprintf(name, sizeof name, i == 1 ? "CEngine::Frame" : "Node_%u", i);
        if (vp_vprof_writer_node(w, (int32_t)g[i].parent, name, g[i].group, (int32_t)i, NULL,
                                 &err) != VP_OK)
            gen_die("node", &err);
    }

    /* Node ids equal generator indices, but writer slots follow insertion
     * order (late nodes last): map generator index -> slot for timings. */
    long *slot = malloc(nnodes * sizeof *slot);
    if (!slot) {
        fprintf(stderr, "gen_vprof: out of memory\n");
        return 1;
    }
    for (uint32_t i = 0; i < nnodes; i++)
        slot[i] = -1;
    slot[0] = 0;
    for (uint32_t i = 1; i < nnodes; i++)
        slot[i] = vp_vprof_writer_slot(w, (int32_t)i);

    int32_t tick = 100000;
    uint64_t elapsed_us = 0;
    for (uint32_t f = 0; f < frames; f++) {
        if (f == late_at && f != 0) {
            for (uint32_t i = 1; i < nnodes; i++) {
                if (g[i].start != late_at)
                    continue;
                snprintf(name, sizeof name, "Late_%u", i);
                if (vp_vprof_writer_node(w, (int32_t)g[i].parent, name, g[i].group, (int32_t)i,
                                         NULL, &err) != VP_OK)
                    gen_die("node", &err);
                slot[i] = vp_vprof_writer_slot(w, (int32_t)i);
            }
        }
        uint32_t spike = UINT32_MAX;
        if (f % spike_every == spike_every - 1 && nnodes > 2)
            do
                spike = 2 + rng_next() % (nnodes - 2);
            while (g[spike].start > f);
        memset(incl, 0, nnodes * sizeof *incl);
        /* Parents have smaller indices than children: one backward pass
         * turns self times into inclusive times. */
        for (uint32_t i = nnodes - 1; i >= 1; i--) {
            const gnode *n = &g[i];
            if (n->start > f)
                continue;
            uint32_t r = rng_next();
            uint64_t self = n->mean_us ? n->mean_us - n->mean_us / 4 + (r % (n->mean_us / 2 + 1))
                                       : (r & 3);
            if (i == spike)
                self += 300000;
            incl[i] += self;
            incl[n->parent] += incl[i];
            vp_vprof_wtiming *ti = &t[slot[i]];
            ti->time_us = incl[i];
            ti->calls = n->calls_lo + (r >> 16) % n->calls_span;
        }
        t[0].time_us = 0; /* the root's scope is still open at snapshot time */
        t[0].calls = 1;
        if (vp_vprof_writer_frame(w, tick, t, &err) != VP_OK)
            gen_die("frame", &err);
        elapsed_us += incl[1];
        tick = 100000 + (int32_t)(elapsed_us / 15000);
    }
    uint64_t bytes;
    if (vp_vprof_writer_close(w, &bytes, &err) != VP_OK)
        gen_die("close", &err);
    printf("gen_vprof: %s: %u frames x %u nodes, %llu bytes\n", out, frames, nnodes,
           (unsigned long long)bytes);
    free(g);
    free(t);
    free(incl);
    free(slot);
    return 0;
}
