/* The exact search of playtable.ai.dots_solver, in C.

   The same negamax as DotsSolver._search with its default reductions (see that module's
   docstring for the value u, the safe and long-chain captures of normal scoring, the dead
   components of misère, the key and the move order), on a position of at most 64 lines given
   as bit masks, with a fixed-size transposition table of four-entry buckets. Python keeps
   everything around it: the labels, the projection of big boards onto their free lines, the
   root moves and the time budget. The pure Python search stays the reference: the tests and
   bench/verify_solver.py check this one against it.

   Core(cells, lines, perms, sym_min_free, table_bits, sym_slack=2, misere=True, etc=True,
        loony=True, prune=True)
       cells: the line mask of every cell; lines: how many lines (<= 64); perms: symmetries
       of the position as permutations of the lines (identity excluded); the key is
       canonicalised with them when at least sym_min_free lines are free, by the symmetries
       that move the searched position by at most sym_slack lines; the table holds
       2 ** table_bits entries of 16 bytes; misere picks the scoring. etc and loony switch
       two speed-ups of normal scoring (exact either way; off only to measure and verify):
       the enhanced transposition cutoff (a safe line whose position's stored upper bound
       refutes ends the node before any search) and the loony bound (a cell offered at the
       end of a chain is worth 0 or more to the side to move, Berlekamp's loony theorem);
       prune switches the dominated sacrifices of normal scoring (see half_hearted and the
       lone cells in search).
   Core.search(drawn, alpha, beta, seconds) -> int, or None when the time ran out
       The fail-soft value u of the side to move at ``drawn`` within (alpha, beta).
   Core.nodes, Core.entries; Core.profile (where the nodes went, see Core_get_profile);
   Core.clear() empties the table.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#define MAX_LINES 64
#define MAX_CELLS 128
#define MAX_PERMS 11
#define NO_MOVE 0xFF
#define CHECK_EVERY 0x3FF
#define WAYS 4 /* entries a bucket: 64 bytes, one cache line */

typedef struct {
    uint64_t key;
    int16_t lower, upper;
    uint8_t move, coins, work, used;
} Entry; /* 16 bytes */

typedef struct {
    PyObject_HEAD
    int n, ncells, nperms, ngroups, sym_min_free, sym_slack, busy, timeout;
    int weight; /* +1 normal scoring, -1 misère */
    int nactive;
    uint8_t active[MAX_PERMS]; /* the symmetries worth trying in this search */
    uint64_t full;
    uint64_t cells[MAX_CELLS];
    uint8_t line_count[MAX_LINES];
    uint8_t line_cell[MAX_LINES][2];
    uint64_t groups[MAX_CELLS];       /* ground lines of one cell, when two or more */
    uint64_t prefixes[MAX_CELLS][8];  /* the k lowest lines of each group */
    uint8_t inverse[MAX_PERMS][MAX_LINES];
    uint8_t forward[MAX_PERMS][MAX_LINES];
    uint64_t (*tables)[8][256];       /* per symmetry, per byte of a mask: its image */
    Entry *tt;
    size_t tt_bytes;
    uint64_t tt_mask, entries, nodes;
    /* Where the nodes go: by free lines, and by kind (see Core_get_profile). */
    uint64_t by_free[MAX_LINES + 1];
    uint64_t by_kind[4];
    /* The search's counters: table probes and hits, cutoffs by cause, and at the moves of a
       node the move index (0 the first) that failed high; nodes that searched every move. */
    uint64_t probes, hits, tt_cuts, etc_cuts, loony_cuts, all_nodes, cut_at[8];
    int etc_on, loony_on, prune_on; /* the enhanced transposition cutoff; the loony bound */
    double deadline;
} Core;

enum { KIND_OFFERED, KIND_SAFE, KIND_LOONY, KIND_SIMPLE };

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int popcount(uint64_t x) { return __builtin_popcountll(x); }
static inline int lowest(uint64_t x) { return __builtin_ctzll(x); }

static uint64_t image(const Core *c, int s, uint64_t mask) {
    const uint64_t(*t)[256] = c->tables[s];
    return t[0][mask & 0xFF] | t[1][mask >> 8 & 0xFF] | t[2][mask >> 16 & 0xFF] |
           t[3][mask >> 24 & 0xFF] | t[4][mask >> 32 & 0xFF] | t[5][mask >> 40 & 0xFF] |
           t[6][mask >> 48 & 0xFF] | t[7][mask >> 56 & 0xFF];
}

static inline uint64_t slot_of(const Core *c, uint64_t key, int coins) {
    uint64_t h = (key ^ (uint64_t)coins * 0x9E3779B97F4A7C15ULL) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
    return h & c->tt_mask & ~(uint64_t)(WAYS - 1);
}

/* Free ground lines that duplicate another free ground line of the same cell. */
static inline uint64_t redundant(const Core *c, uint64_t free) {
    uint64_t extra = 0;
    for (int g = 0; g < c->ngroups; g++) {
        uint64_t part = free & c->groups[g];
        extra |= part & (part - 1);
    }
    return extra;
}

/* Cells that the line ``line`` completes, ``drawn`` holding it. */
static inline int completed(const Core *c, uint64_t drawn, int line) {
    int k = 0;
    for (int j = 0; j < c->line_count[line]; j++) {
        uint64_t m = c->cells[c->line_cell[line][j]];
        if ((drawn & m) == m) k++;
    }
    return k;
}

/* A capture line (among ``candidates``, lines completing a cell whose other cell has two free
   lines) at the end of a chain of three or more cells: the chain goes on through cells with
   two free lines and must end at the border or at a cell with three or more (never at a
   completable cell: a chain open at both ends, or a loop, where the double-deal differs). */
static uint64_t long_chain_capture(const Core *c, uint64_t free, uint64_t candidates) {
    for (; candidates; candidates &= candidates - 1) {
        const int line = lowest(candidates);
        int cell = -1;
        for (int j = 0; j < c->line_count[line]; j++)
            if (popcount(free & c->cells[c->line_cell[line][j]]) == 2) cell = c->line_cell[line][j];
        if (cell < 0) continue;
        int length = 1, ok = 0;
        uint64_t came = 1ULL << line;
        uint64_t path = came, taken = came; /* the chain's lines; all but its last cell's */
        for (;;) {
            const uint64_t out = free & c->cells[cell] & ~came;
            const int out_line = lowest(out);
            int next = -1;
            for (int j = 0; j < c->line_count[out_line]; j++)
                if (c->line_cell[out_line][j] != cell) next = c->line_cell[out_line][j];
            if (next < 0) {
                ok = 1;
                break;
            }
            const int k = popcount(free & c->cells[next]);
            if (k == 2) {
                length++;
                cell = next;
                came = out;
                taken = path;
                path |= out;
                if (length > 64) break;
                continue;
            }
            ok = k >= 3;
            break;
        }
        if (ok && length >= 2) return taken;
    }
    return 0;
}

/* The double-dealing lines: for each capture into a cell with two free lines, that cell's
   other free line (drawing it hands over both cells and keeps the initiative). */
static uint64_t declines(const Core *c, uint64_t free, uint64_t chain_captures) {
    uint64_t lines = 0;
    for (; chain_captures; chain_captures &= chain_captures - 1) {
        const int line = lowest(chain_captures);
        for (int j = 0; j < c->line_count[line]; j++) {
            const uint64_t fm = free & c->cells[c->line_cell[line][j]];
            if (popcount(fm) == 2) lines |= fm & ~(1ULL << line);
        }
    }
    return lines;
}

/* The cell across ``line`` from ``cell``, or -1 (the border). */
static inline int across(const Core *c, int line, int cell) {
    for (int j = 0; j < c->line_count[line]; j++)
        if (c->line_cell[line][j] != cell) return c->line_cell[line][j];
    return -1;
}

/* The end lines of every chain of exactly two cells (no capture on offer): a half-hearted
   handout. Its middle line (the hard-hearted handout) is never worse for the side giving
   the cells: after the middle line the opponent takes both cells with the end lines (safe
   captures, the ends going to the border or to distinct cells of three or more lines) and
   moves on; after an end line the opponent has that same choice and also the double-deal.
   ``twice``: the lines between two cells of two free lines. The middle lines go to
   ``*middles``, and ``taken[middle]`` gets the chain's three lines (drawn once the opponent
   has taken both cells). */
static uint64_t half_hearted(const Core *c, uint64_t free, uint64_t twice, const uint64_t *pairs,
                             const uint8_t *pair_cell, int npairs, uint64_t *middles,
                             uint64_t *taken) {
    uint64_t ends = 0;
    for (int i = 0; i < npairs; i++) {
        const uint64_t inner = pairs[i] & twice;
        if (popcount(inner) != 1) continue;
        const int x = pair_cell[i], middle = lowest(inner);
        const int y = across(c, middle, x);
        const uint64_t fy = free & c->cells[y];
        if (popcount(fy & twice) != 1) continue;
        const uint64_t e1 = pairs[i] & ~inner, e2 = fy & ~inner;
        const int o1 = across(c, lowest(e1), x), o2 = across(c, lowest(e2), y);
        if (o1 >= 0 && o1 == o2) continue;
        ends |= e1 | e2;
        *middles |= inner;
        taken[middle] = pairs[i] | fy;
    }
    return ends;
}

#define NO_CUT (1 << 15)

/* The table key of a position ``drawn`` (dead lines included) is the least of: ``drawn``
   with the ground lines of each cell in canonical form (they are interchangeable: the
   group's lowest lines), returned here, and its image under each active symmetry, put in
   ``images`` (the least is taken once at least sym_min_free lines are free). */
static inline uint64_t canonical_images(const Core *c, uint64_t drawn, uint64_t *images) {
    uint64_t base = drawn;
    for (int g = 0; g < c->ngroups; g++) {
        uint64_t part = base & c->groups[g];
        if (part && part != c->groups[g])
            base = (base & ~c->groups[g]) | c->prefixes[g][popcount(part)];
    }
    for (int i = 0; i < c->nactive; i++) images[i] = image(c, c->active[i], base);
    return base;
}

/* The key of ``drawn | lines`` (no capture on offer there), from ``drawn``'s canonical form
   ``base`` and its images: an image is the union of the images of single lines, and a
   ground line added to a group moves that group's canonical form to its next prefix. */
static inline uint64_t key_after(const Core *c, uint64_t drawn, uint64_t base,
                                 const uint64_t *images, int use_sym, uint64_t lines) {
    uint64_t add = 0;
    for (uint64_t rest = lines; rest; rest &= rest - 1) {
        const uint64_t bit = rest & -rest;
        uint64_t one = bit;
        for (int g = 0; g < c->ngroups; g++)
            if (c->groups[g] & bit) {
                const int k = popcount((drawn | add) & c->groups[g]);
                one = c->prefixes[g][k + 1] ^ c->prefixes[g][k];
            }
        add |= one;
    }
    uint64_t key = base | add;
    if (use_sym)
        for (int i = 0; i < c->nactive; i++) {
            uint64_t im = images[i];
            for (uint64_t rest = add; rest; rest &= rest - 1)
                im |= 1ULL << c->forward[c->active[i]][lowest(rest)];
            if (im < key) key = im;
        }
    return key;
}

/* The enhanced transposition cutoff's keys: the positions after each line of ``safe``
   (``gains`` 0: no capture follows) and after each handout by a line of ``handouts`` (a
   lone cell, or the middle of a chain of two: ``taken[line]``, the lines drawn once the
   opponent has taken its cells, one fewer than the lines, at once); their table slots are
   prefetched together. Returns how many keys. */
static int etc_keys(const Core *c, uint64_t drawn, uint64_t base, const uint64_t *images,
                    int nfree, uint64_t safe, uint64_t handouts, const uint64_t *taken,
                    uint64_t *keys, int *gains) {
    int count = 0;
    for (; safe; safe &= safe - 1) {
        keys[count] = key_after(c, drawn, base, images,
                                c->nactive && nfree - 1 >= c->sym_min_free, safe & -safe);
        gains[count] = 0;
        __builtin_prefetch(&c->tt[slot_of(c, keys[count++], 0)]);
    }
    for (; handouts; handouts &= handouts - 1) {
        const uint64_t lines = taken[lowest(handouts)];
        keys[count] = key_after(c, drawn, base, images,
                                c->nactive && nfree - popcount(lines) >= c->sym_min_free, lines);
        gains[count] = popcount(lines) - 1;
        __builtin_prefetch(&c->tt[slot_of(c, keys[count++], 0)]);
    }
    return count;
}

/* Both lines of each lone cell (``lone``: the lower one of each; ``pair``: both, by it). */
static inline uint64_t lone_twins(uint64_t lone, const uint64_t *pair) {
    uint64_t all = 0;
    for (; lone; lone &= lone - 1) all |= pair[lowest(lone)];
    return all;
}

/* The value -gain - upper of the first of ``keys`` whose stored upper bound refutes beta
   for the side to move here, else NO_CUT. */
static int etc_check(const Core *c, const uint64_t *keys, const int *gains, int count, int beta) {
    for (int i = 0; i < count; i++) {
        const Entry *cb = &c->tt[slot_of(c, keys[i], 0)];
        for (int j = 0; j < WAYS; j++)
            if (cb[j].used && cb[j].key == keys[i] && cb[j].coins == 0 &&
                -gains[i] - cb[j].upper >= beta)
                return -gains[i] - cb[j].upper;
    }
    return NO_CUT;
}

static int search(Core *c, uint64_t drawn, int alpha, int beta) {
    if (c->timeout) return 0;
    c->nodes++;
    if (!(c->nodes & CHECK_EVERY) && now() > c->deadline) {
        c->timeout = 1;
        return 0;
    }
    const int w = c->weight;
    int gained = 0; /* u of the forced captures made at this node (normal scoring) */
    uint64_t free, capture, chain, high, twice;
    uint64_t pairs[MAX_CELLS]; /* the free lines of each cell with two */
    uint8_t pair_cell[MAX_CELLS];
    int open, npairs;
    for (;;) {
        free = c->full & ~drawn;
        if (!free) return gained;
        capture = chain = high = twice = 0;
        open = npairs = 0;
        /* Branch-free: the counts of free lines are unpredictable. */
        for (int i = 0; i < c->ncells; i++) {
            const uint64_t fm = free & c->cells[i];
            const int k = popcount(fm);
            open += k != 0;
            capture |= fm & -(uint64_t)(k == 1);
            twice |= chain & fm & -(uint64_t)(k == 2);
            chain |= fm & -(uint64_t)(k == 2);
            pairs[npairs] = fm;
            pair_cell[npairs] = (uint8_t)i;
            npairs += k == 2;
            high |= fm & -(uint64_t)(k >= 3);
        }
        if (w < 0 || !capture) break;
        /* Normal scoring: the safe and the long-chain captures are played at once. */
        uint64_t forced = capture & ~chain;
        if (!forced) {
            /* The whole chain but its last two cells at once: each line takes one cell. */
            forced = long_chain_capture(c, free, capture & chain);
            if (!forced) break;
            drawn |= forced;
            gained += popcount(forced);
            continue;
        }
        const int line = lowest(forced);
        drawn |= 1ULL << line;
        gained += completed(c, drawn, line);
    }
    c->by_free[popcount(free)]++;
    if (w > 0 && capture) c->by_kind[KIND_OFFERED]++;
    else if (!high) c->by_kind[KIND_SIMPLE]++;
    else if (free & ~chain & ~capture) c->by_kind[KIND_SAFE]++;
    else c->by_kind[KIND_LOONY]++;
    /* |u| can never exceed the cells still open. */
    if (open <= alpha - gained) return gained + open;
    if (-open >= beta - gained) return gained - open;
    alpha -= gained;
    beta -= gained;
    if (w > 0 && capture && c->loony_on && (declines(c, free, capture & chain) & ~capture)) {
        /* A loony position (Berlekamp): a cell is offered at the end of a chain whose next
           cell has two free lines s (into the offered cell) and t, and drawing t claims
           nothing. Taking both cells and moving on gives 2 + x, declining with t gives
           -2 - x, for the same position after s and t (x its value to the side to move):
           one of them is worth 0 or more. */
        if (beta <= 0) {
            c->loony_cuts++;
            return gained;
        }
        if (alpha < -1) alpha = -1;
    }

    /* The key: dead lines count as drawn, ground lines of a cell are interchangeable, the
       least image under the symmetries, and the number of dead cells. */
    const uint64_t dead = w < 0 ? capture & ~chain & ~high : 0;
    /* Only dead components left (misère): the side to move must take them all. */
    if (w < 0 && dead == free) return -open;
    int sym = 0;
    uint64_t images[MAX_PERMS];
    const uint64_t base = canonical_images(c, drawn | dead, images);
    uint64_t key = base;
    if (popcount(free) >= c->sym_min_free)
        for (int i = 0; i < c->nactive; i++)
            if (images[i] < key) {
                key = images[i];
                sym = c->active[i] + 1;
            }
    int coins = 0;
    if (dead)
        for (int i = 0; i < c->ncells; i++)
            if (free & c->cells[i] & dead) coins++;

    Entry *bucket = &c->tt[slot_of(c, key, coins)];
    __builtin_prefetch(bucket);
    /* Enhanced transposition cutoff (normal scoring, no capture on offer): a safe line
       leads to a position with no capture, and so does a lone cell or a chain of two handed
       out by its middle line once the opponent has taken it (at once: safe captures); their
       keys are known without searching, and a stored upper bound may refute. The keys are
       made (and their slots fetched) while this position's slot is on its way. Both kinds
       of handout are found here for the move order too (see half_hearted). */
    uint64_t etc[MAX_LINES], lone = 0, middles = 0, ends = 0, taken[MAX_LINES];
    int netc = 0, gains[MAX_LINES];
    if (w > 0 && !capture && c->prune_on) {
        for (int i = 0; i < npairs; i++)
            if (!(pairs[i] & twice)) {
                /* A lone cell: two free lines, each to the border or to a cell with three
                   or more (no capture is on offer here). */
                lone |= pairs[i] & -pairs[i];
                taken[lowest(pairs[i])] = pairs[i];
            }
        ends = half_hearted(c, free, twice, pairs, pair_cell, npairs, &middles, taken);
    }
    if (c->etc_on && w > 0 && !capture)
        netc = etc_keys(c, drawn, base, images, popcount(free), free & ~chain & ~redundant(c, free),
                        lone | middles, taken, etc, gains);
    Entry *found = NULL;
    for (int j = 0; j < WAYS; j++)
        if (bucket[j].used && bucket[j].key == key && bucket[j].coins == coins) found = &bucket[j];
    uint64_t first = 0;
    c->probes++;
    if (found) {
        int lower = found->lower, upper = found->upper;
        c->hits++;
        if (lower >= beta || upper <= alpha || lower == upper) c->tt_cuts++;
        if (lower >= beta) return gained + lower;
        if (upper <= alpha) return gained + upper;
        if (lower == upper) return gained + lower;
        if (lower > alpha) alpha = lower;
        if (upper < beta) beta = upper;
        if (found->move != NO_MOVE)
            first = 1ULL << (sym ? c->inverse[sym - 1][found->move] : found->move);
    }
    if (netc) {
        const int r = etc_check(c, etc, gains, netc, beta);
        if (r != NO_CUT) {
            c->etc_cuts++;
            return gained + r;
        }
    }

    uint64_t order[4];
    if (w > 0 && capture) {
        /* Offered cells that no reduction takes: take one, or decline with the
           double-dealing line; drawing elsewhere first is never better than taking. */
        const uint64_t allowed = capture | declines(c, free, capture & chain);
        first &= allowed & free;
        order[0] = first;
        order[1] = capture & ~first;
        order[2] = allowed & ~capture & ~first;
        order[3] = 0;
    } else {
        uint64_t moves = free & ~redundant(c, free);
        if (moves & ~dead) moves &= ~dead;
        first &= moves;
        const uint64_t caps = capture & moves;
        moves &= ~ends;
        /* Of a lone cell's two lines, one. */
        const uint64_t lone_second = lone ? chain & ~capture & ~lone & lone_twins(lone, taken) : 0;
        const uint64_t sacrifices = chain & ~capture & moves & ~lone_second;
        const uint64_t safe = moves & ~capture & ~chain;
        /* The table's move, captures, then (misère) sacrifices before safe lines, or
           (normal) safe lines before sacrifices. */
        order[0] = first;
        order[1] = caps & ~first;
        order[2] = (w < 0 ? sacrifices : safe) & ~first;
        order[3] = (w < 0 ? safe : sacrifices) & ~first;
    }
    const uint64_t nodes_before = c->nodes;
    int best = -(1 << 14), a = alpha;
    int best_line = -1, index = 0;
    /* Group by group; within a group centre-out (bit order). A history heuristic (lines best
       elsewhere first) took four times the nodes on 3x4. */
    for (int g = 0; g < 4 && a < beta; g++) {
        uint64_t group = order[g];
        while (group) {
            const int line = lowest(group);
            group &= group - 1;
            const uint64_t after = drawn | 1ULL << line;
            const int claimed = capture >> line & 1 ? w * completed(c, after, line) : 0;
            int value;
            /* u = w * k + u(after) after a capture of k cells, -u(after) otherwise. */
            if (best_line >= 0 && beta - a > 1) {
                /* Principal variation search: prove the move is no better first. */
                if (claimed) {
                    value = claimed + search(c, after, a - claimed, a + 1 - claimed);
                    if (a < value && value < beta)
                        value = claimed + search(c, after, value - claimed, beta - claimed);
                } else {
                    value = -search(c, after, -a - 1, -a);
                    if (a < value && value < beta) value = -search(c, after, -beta, -value);
                }
            } else if (claimed) {
                value = claimed + search(c, after, a - claimed, beta - claimed);
            } else {
                value = -search(c, after, -beta, -a);
            }
            if (c->timeout) return 0;
            if (value > best) {
                best = value;
                best_line = line;
                if (value > a) {
                    a = value;
                    if (a >= beta) {
                        c->cut_at[index < 7 ? index : 7]++;
                        break;
                    }
                }
            }
            index++;
        }
    }
    if (best < beta) c->all_nodes++;

    /* Store: merge with this position's entry, else the bucket's entry of least work makes
       way (an empty one first): the entries of big subtrees stay. */
    uint64_t spent = c->nodes - nodes_before;
    uint8_t work = (uint8_t)(spent ? 64 - __builtin_clzll(spent) : 0);
    /* Look again: the children may have replaced this bucket's entries meanwhile. */
    Entry *e = NULL;
    for (int j = 0; j < WAYS; j++)
        if (bucket[j].used && bucket[j].key == key && bucket[j].coins == coins) e = &bucket[j];
    int lower = -(1 << 14), upper = 1 << 14;
    if (e) {
        lower = e->lower;
        upper = e->upper;
        if (work < e->work) work = e->work;
    } else {
        e = &bucket[0];
        for (int j = 0; j < WAYS; j++) {
            if (!bucket[j].used) {
                e = &bucket[j];
                break;
            }
            if (bucket[j].work <= e->work) e = &bucket[j];
        }
        if (!e->used) c->entries++;
    }
    if (best <= alpha) {
        if (best < upper) upper = best;
    } else if (best >= beta) {
        if (best > lower) lower = best;
    } else {
        lower = upper = best;
    }
    e->key = key;
    e->coins = (uint8_t)coins;
    e->lower = (int16_t)lower;
    e->upper = (int16_t)upper;
    e->work = work;
    e->used = 1;
    e->move = best_line < 0 ? NO_MOVE : (uint8_t)(sym ? c->forward[sym - 1][best_line] : best_line);
    return gained + best;
}

/* The table is one block; on Linux it asks for huge pages, since nearly every probe misses
   the caches and a table of tens of MB in 4 KB pages misses the TLB too. */
static int alloc_table(Core *c, size_t entries) {
    size_t bytes = entries * sizeof(Entry);
#ifdef __linux__
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return -1;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    c->tt = p;
#else
    c->tt = calloc(entries, sizeof(Entry));
    if (!c->tt) return -1;
#endif
    c->tt_bytes = bytes;
    return 0;
}

static void free_table(Core *c) {
    if (!c->tt) return;
#ifdef __linux__
    munmap(c->tt, c->tt_bytes);
#else
    free(c->tt);
#endif
    c->tt = NULL;
}

/* -- the Python type --------------------------------------------------------------------- */

static int read_mask(PyObject *item, uint64_t *out) {
    unsigned long long v = PyLong_AsUnsignedLongLong(item);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = (uint64_t)v;
    return 0;
}

static int Core_init(Core *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"cells", "lines", "perms", "sym_min_free", "table_bits",
                            "sym_slack", "misere", "etc", "loony", "prune", NULL};
    PyObject *cells, *perms;
    int n, sym_min_free, table_bits, sym_slack = 2, misere = 1, etc = 1, loony = 1, prune = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OiOii|ipppp", names, &cells, &n, &perms,
                                     &sym_min_free, &table_bits, &sym_slack, &misere, &etc,
                                     &loony, &prune))
        return -1;
    self->etc_on = etc;
    self->prune_on = prune;
    self->loony_on = loony;
    self->weight = misere ? -1 : 1;
    if (n < 1 || n > MAX_LINES) {
        PyErr_SetString(PyExc_ValueError, "a position of 1 to 64 lines");
        return -1;
    }
    if (table_bits < 4 || table_bits > 30) {
        PyErr_SetString(PyExc_ValueError, "table_bits must be within 4..30");
        return -1;
    }
    PyObject *seq = PySequence_Fast(cells, "cells must be a sequence");
    if (!seq) return -1;
    Py_ssize_t ncells = PySequence_Fast_GET_SIZE(seq);
    if (ncells > MAX_CELLS) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "at most 128 cells");
        return -1;
    }
    self->n = n;
    self->full = n == 64 ? ~0ULL : (1ULL << n) - 1;
    self->ncells = 0;
    memset(self->line_count, 0, sizeof self->line_count);
    for (Py_ssize_t i = 0; i < ncells; i++) {
        uint64_t m;
        if (read_mask(PySequence_Fast_GET_ITEM(seq, i), &m) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        m &= self->full;
        if (!m) continue;
        int id = self->ncells++;
        self->cells[id] = m;
        for (uint64_t rest = m; rest; rest &= rest - 1) {
            int line = lowest(rest);
            if (self->line_count[line] >= 2) {
                Py_DECREF(seq);
                PyErr_SetString(PyExc_ValueError, "a line borders at most two cells");
                return -1;
            }
            self->line_cell[line][self->line_count[line]++] = (uint8_t)id;
        }
    }
    Py_DECREF(seq);
    /* Ground lines (one cell) of the same cell are interchangeable. */
    self->ngroups = 0;
    for (int i = 0; i < self->ncells; i++) {
        uint64_t group = 0;
        for (uint64_t rest = self->cells[i]; rest; rest &= rest - 1)
            if (self->line_count[lowest(rest)] == 1) group |= 1ULL << lowest(rest);
        if (popcount(group) < 2 || popcount(group) > 7) continue;
        int g = self->ngroups++;
        self->groups[g] = group;
        uint64_t prefix = 0, rest = group;
        self->prefixes[g][0] = 0;
        for (int k = 1; k <= popcount(group); k++) {
            prefix |= rest & -rest;
            rest &= rest - 1;
            self->prefixes[g][k] = prefix;
        }
    }
    PyObject *pseq = PySequence_Fast(perms, "perms must be a sequence");
    if (!pseq) return -1;
    Py_ssize_t nperms = PySequence_Fast_GET_SIZE(pseq);
    if (nperms > MAX_PERMS) {
        Py_DECREF(pseq);
        PyErr_SetString(PyExc_ValueError, "at most 11 symmetries besides the identity");
        return -1;
    }
    PyMem_Free(self->tables);
    self->tables = NULL;
    if (nperms) {
        self->tables = PyMem_Calloc((size_t)nperms, sizeof *self->tables);
        if (!self->tables) {
            Py_DECREF(pseq);
            PyErr_NoMemory();
            return -1;
        }
    }
    for (Py_ssize_t s = 0; s < nperms; s++) {
        PyObject *p = PySequence_Fast(PySequence_Fast_GET_ITEM(pseq, s), "a permutation");
        if (!p || PySequence_Fast_GET_SIZE(p) != n) {
            Py_XDECREF(p);
            Py_DECREF(pseq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a permutation of the lines");
            return -1;
        }
        for (int i = 0; i < n; i++) {
            long j = PyLong_AsLong(PySequence_Fast_GET_ITEM(p, i));
            if (j < 0 || j >= n) {
                Py_DECREF(p);
                Py_DECREF(pseq);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a permutation of the lines");
                return -1;
            }
            self->forward[s][i] = (uint8_t)j;
            self->inverse[s][j] = (uint8_t)i;
        }
        Py_DECREF(p);
        for (int byte = 0; byte < 8; byte++)
            for (int v = 1; v < 256; v++) {
                int low = lowest((uint64_t)v);
                int line = byte * 8 + low;
                uint64_t bit = line < n ? 1ULL << self->forward[s][line] : 0;
                self->tables[s][byte][v] = self->tables[s][byte][v & (v - 1)] | bit;
            }
    }
    Py_DECREF(pseq);
    self->nperms = (int)nperms;
    self->sym_min_free = sym_min_free;
    self->sym_slack = sym_slack;
    free_table(self);
    if (alloc_table(self, (size_t)1 << table_bits) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->tt_mask = ((uint64_t)1 << table_bits) - 1;
    self->entries = self->nodes = 0;
    memset(self->by_free, 0, sizeof self->by_free);
    memset(self->by_kind, 0, sizeof self->by_kind);
    self->probes = self->hits = self->tt_cuts = self->etc_cuts = self->loony_cuts = 0;
    self->all_nodes = 0;
    memset(self->cut_at, 0, sizeof self->cut_at);
    return 0;
}

static void Core_dealloc(Core *self) {
    free_table(self);
    PyMem_Free(self->tables);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Core_search(Core *self, PyObject *args) {
    PyObject *drawn_obj;
    int alpha, beta;
    double seconds;
    if (!PyArg_ParseTuple(args, "Oiid", &drawn_obj, &alpha, &beta, &seconds)) return NULL;
    uint64_t drawn;
    if (read_mask(drawn_obj, &drawn) < 0) return NULL;
    if (drawn & ~self->full) {
        PyErr_SetString(PyExc_ValueError, "drawn has lines beyond the position's");
        return NULL;
    }
    if (alpha >= beta || alpha < -(1 << 13) || beta > (1 << 13)) {
        PyErr_SetString(PyExc_ValueError, "a window alpha < beta within +-8192");
        return NULL;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Core is already searching");
        return NULL;
    }
    self->busy = 1;
    self->timeout = 0;
    /* A symmetry s can only bring two positions of this search together once they hold
       both ``drawn`` and its image under s: when that image is far from ``drawn`` such
       positions are deep in the tree, where a transposition saves little, and trying s at
       every node costs more than it saves. */
    self->nactive = 0;
    for (int s = 0; s < self->nperms; s++)
        if (popcount(image(self, s, drawn) & ~drawn) <= self->sym_slack)
            self->active[self->nactive++] = (uint8_t)s;
    int value;
    Py_BEGIN_ALLOW_THREADS
    self->deadline = now() + (seconds > 1e9 ? 1e9 : seconds);
    value = search(self, drawn, alpha, beta);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (self->timeout) Py_RETURN_NONE;
    return PyLong_FromLong(value);
}

static PyObject *Core_clear(Core *self, PyObject *Py_UNUSED(ignored)) {
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Core is searching");
        return NULL;
    }
    memset(self->tt, 0, (size_t)(self->tt_mask + 1) * sizeof(Entry));
    self->entries = 0;
    Py_RETURN_NONE;
}

static PyObject *Core_get_nodes(Core *self, void *Py_UNUSED(closure)) {
    return PyLong_FromUnsignedLongLong(self->nodes);
}

static PyObject *Core_get_entries(Core *self, void *Py_UNUSED(closure)) {
    return PyLong_FromUnsignedLongLong(self->entries);
}

static PyMethodDef Core_methods[] = {
    {"search", (PyCFunction)Core_search, METH_VARARGS,
     "search(drawn, alpha, beta, seconds) -> fail-soft value u, or None past the time"},
    {"clear", (PyCFunction)Core_clear, METH_NOARGS, "empty the transposition table"},
    {NULL, NULL, 0, NULL},
};

/* {"offered": n, "safe": n, "loony": n, "simple": n, "by_free": [n0, n1, ...]}: the nodes
   searched (past their forced captures) with a capture on offer; with a line that gives
   nothing away; with none (every line a sacrifice) and a cell of three or more free lines;
   with chains and loops only; and the counters: "probes" and "hits" of the table, "tt_cuts"
   (a hit that ended the node), "etc_cuts" and "loony_cuts" (nodes ended by the enhanced
   transposition cutoff, by the loony bound), "all_nodes" (every move searched, none failed
   high) and "cut_at" (how often the first, second, ... eighth or later move failed high). */
static PyObject *Core_get_profile(Core *self, void *Py_UNUSED(closure)) {
    PyObject *by_free = PyList_New(self->n + 1);
    if (!by_free) return NULL;
    for (int i = 0; i <= self->n; i++)
        PyList_SET_ITEM(by_free, i, PyLong_FromUnsignedLongLong(self->by_free[i]));
    PyObject *cut_at = PyList_New(8);
    if (!cut_at) {
        Py_DECREF(by_free);
        return NULL;
    }
    for (int i = 0; i < 8; i++)
        PyList_SET_ITEM(cut_at, i, PyLong_FromUnsignedLongLong(self->cut_at[i]));
    typedef unsigned long long ull;
    return Py_BuildValue("{sKsKsKsKsNsKsKsKsKsKsKsN}", "offered", (ull)self->by_kind[KIND_OFFERED],
                         "safe", (ull)self->by_kind[KIND_SAFE], "loony",
                         (ull)self->by_kind[KIND_LOONY], "simple",
                         (ull)self->by_kind[KIND_SIMPLE], "by_free", by_free, "probes",
                         (ull)self->probes, "hits", (ull)self->hits, "tt_cuts", (ull)self->tt_cuts,
                         "etc_cuts", (ull)self->etc_cuts, "loony_cuts", (ull)self->loony_cuts,
                         "all_nodes", (ull)self->all_nodes, "cut_at", cut_at);
}

static PyGetSetDef Core_getset[] = {
    {"profile", (getter)Core_get_profile, NULL, "where the nodes went, by kind and free lines", NULL},
    {"nodes", (getter)Core_get_nodes, NULL, "positions searched so far", NULL},
    {"entries", (getter)Core_get_entries, NULL, "table entries in use", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "playtable.ai._dotscore.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The exact Dots and Boxes search on at most 64 lines.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_dotscore", "The exact Dots and Boxes search, in C.", -1,
    NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__dotscore(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
