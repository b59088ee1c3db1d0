/*
 * carc.h — internal shared definitions of the Carcassonne plugin: the game
 * (immutable rules, tile kinds, figure kinds, expansions) and the state (one
 * flat block: board, union-find of features, figures, expansion blocks), and
 * the cross-file functions between its subsystems.
 *
 * State layout: struct cas_state is a header followed by arrays whose sizes
 * and offsets the game computes once (carc_layout), so state_copy is one
 * memcpy and no move allocates.
 */
#ifndef CARC_H
#define CARC_H

#include <castellan/carcassonne.h>
#include <castellan/outbuf.h>
#include <castellan/plugin.h>

#include <stdint.h>
#include <string.h>

#define CARC_MAX_PLAYERS 6
#define CARC_MAX_ATTRS 8
#define CARC_MAX_FEATURES 16   /* features on one tile kind       */
#define CARC_MAX_CELLS 2       /* spaces one tile covers (2x1)    */
#define CARC_MAX_FIGKINDS 8
#define CARC_MAX_MEEPLES 12   /* the option `meeples`: per player */
#define CARC_MAX_EXPANSIONS 8
#define CARC_MAX_PHASES 16
#define CARC_RING_WORDS 32     /* cloister rings folded onto 32x32 spaces */
#define CARC_MAX_KINDS 250
#define CARC_MAX_FIGURES 255  /* figures of all players together; a
                                  node's uint8_t count holds them all */
#define CARC_ID_LEN 16
#define CARC_FTEXT_LEN 40
#define CARC_NONE 0xFFFFu
#define CARC_PATTERNS 625 /* 5^4 side requirements */
#define CARC_PATTERN_WORDS 10 /* 64-bit words of a bit set over patterns */

/* Edge types of a tile side. */
enum carc_edge { EDGE_NONE = 0, EDGE_FIELD = 1, EDGE_ROAD = 2, EDGE_CITY = 3,
                 EDGE_RIVER = 4, EDGE_ANY = 5 };

/* Action kinds, in the top 4 bits of an action code. */
enum carc_action_kind { ACT_DRAW = 1, ACT_PLACE = 2, ACT_DEPLOY = 3,
                        ACT_PASS = 4, ACT_PHASE = 5 };
#define ACT_KIND(a) ((unsigned)((a) >> 60))
#define ACT_MAKE(kind) ((cas_action)(kind) << 60)
#define ACT_DRAW_CODE(k) (ACT_MAKE(ACT_DRAW) | (cas_action)(k))
#define ACT_PLACE_CODE(k, x, y, r)                                         \
    (ACT_MAKE(ACT_PLACE) | ((cas_action)(k) << 40) |                       \
     ((cas_action)(uint16_t)((x) + 0x8000) << 24) |                        \
     ((cas_action)(uint16_t)((y) + 0x8000) << 8) | (cas_action)(r))
#define ACT_PLACE_KIND(a) ((int)(((a) >> 40) & 0xFFFFF))
#define ACT_PLACE_X(a) ((int)(((a) >> 24) & 0xFFFF) - 0x8000)
#define ACT_PLACE_Y(a) ((int)(((a) >> 8) & 0xFFFF) - 0x8000)
#define ACT_PLACE_ROT(a) ((int)((a)&3))
/* One-space tiles are placed by spot codes: the open spots with the same
 * requirement pattern form a group, and a code names (pattern, position in
 * the group, rotation), so a listing is written from each fitting group's
 * size without visiting its spots, and comes out sorted. */
#define ACT_SPOT_FLAG ((cas_action)1 << 56)
#define ACT_SPOT_CODE(k, pattern, pos, r)                                   \
    (ACT_MAKE(ACT_PLACE) | ACT_SPOT_FLAG | ((cas_action)(k) << 48) |        \
     ((cas_action)(pattern) << 32) | ((cas_action)(pos) << 8) | (cas_action)(r))
#define ACT_SPOT_KIND(a) ((int)(((a) >> 48) & 0xFF))
#define ACT_SPOT_PATTERN(a) ((int)(((a) >> 32) & 0x3FF))
#define ACT_SPOT_POS(a) ((int)(((a) >> 8) & 0xFFFF))
#define ACT_DEPLOY_CODE(fk, local)                                         \
    (ACT_MAKE(ACT_DEPLOY) | ((cas_action)(fk) << 16) | (cas_action)(local))
#define ACT_DEPLOY_FIG(a) ((int)(((a) >> 16) & 0xFF))
#define ACT_DEPLOY_LOCAL(a) ((int)((a)&0xFF))
#define ACT_PHASE_CODE(ph, payload)                                        \
    (ACT_MAKE(ACT_PHASE) | ((cas_action)(ph) << 48) |                      \
     ((payload)&CAS_CARC_PAYLOAD_MASK))
#define ACT_PHASE_INDEX(a) ((int)(((a) >> 48) & 0xFFF))

/* ------------------------------------------------------------ tile kinds */

struct carc_feature_def {
    uint8_t cls;       /* enum cas_carc_class */
    uint8_t cellmask;  /* which cells of the tile it covers */
    uint8_t nedges;    /* road/city edges, for the open count */
    uint8_t ntouch;    /* fields: cities touched */
    uint8_t touch[CARC_MAX_FEATURES];
    uint8_t attr[CARC_MAX_ATTRS];
    char name[16];     /* "road", "city", "field", "monastery", ... */
};

/* One of the 4 orientations of a tile kind, in board terms. */
#define SEG_FREE 0xFFu /* a seg slot without a feature */

struct carc_rot {
    int8_t dx[CARC_MAX_CELLS], dy[CARC_MAX_CELLS]; /* cell offsets from anchor */
    uint8_t edge[CARC_MAX_CELLS][4];               /* board side -> edge type  */
    uint8_t seg[CARC_MAX_CELLS][4][3];             /* side, slot -> feature    */
    uint32_t sig[CARC_MAX_CELLS], care[CARC_MAX_CELLS]; /* packed edges       */
    /* the field whose two half-edges meet at corner q (0 NW, 1 NE, 2 SE,
     * 3 SW) of each cell, or SEG_FREE: where a corner figure may stand */
    uint8_t corner[CARC_MAX_CELLS][4];
    char ftext[CARC_MAX_FEATURES][CARC_FTEXT_LEN]; /* "city N+W", "field Nw"   */
};

struct carc_kind {
    char id[CARC_ID_LEN];
    int count;       /* copies in the game, start tile included */
    int hand;        /* not in the bag: placed by an expansion (abbey, castle);
                        count is the most copies a game can place */
    unsigned vetoed; /* bit i: expansion i's veto_placement or veto_area may
                        forbid it */
    /* bit i: expansion i's veto_deploy may forbid that figure kind on it */
    uint8_t deploy_vetoed[CARC_MAX_FIGKINDS];
    /* bit f: feature f is of a class that figure kind may stand on (fields
     * only with farmers on); cas__carc_prepare_deploys */
    uint16_t deploy_features[CARC_MAX_FIGKINDS];
    int ncells;
    int nf;
    int has_cloister;
    int any_edges; /* some side is a `*` edge (abbey): scoring looks past it */
    struct carc_feature_def f[CARC_MAX_FEATURES];
    uint16_t of_class[CAS_CARC_CLOISTER + 1]; /* bit f: feature f is of that class */
    /* the same for a set of classes, by its road..cloister bits
     * (CAS_CARC_CLASS_BIT >> 1): tile_parts_of's answer */
    uint16_t of_classes[1u << CAS_CARC_CLOISTER];
    struct carc_rot rot[4];
    /* for each requirement pattern (base 5 per side: 0 free, else the edge
     * type): one-space tiles, the bit mask of rotations that fit; larger
     * tiles, bit CARC_MAX_CELLS * rot + cell for each rotation and cell
     * whose edges fit an open spot of that pattern */
    uint8_t fitmask[CARC_PATTERNS];
    uint64_t fitting[CARC_PATTERN_WORDS]; /* patterns with a nonzero fitmask */
    /* `wagon-links` (api part_links): in each reading, bit g of links[r][f]
     * for each feature g the tile links to feature f; links_read bit r
     * when the tile has a line of reading r (else reading 0's holds) */
    uint16_t links[CAS_CARC_LINK_READINGS][CARC_MAX_FEATURES];
    uint8_t links_read;
};

/* ------------------------------------------------------------ game */

struct carc_figkind {
    struct cas_carc_figure_kind def; /* name, per_player, strength, hooks */
    int exp;                         /* owning expansion, -1 for the base */
};

struct carc_expansion {
    const struct cas_carc_expansion *desc;
    /* desc->hooks as this engine's struct: the hooks the plugin has, NULL
     * for the rest, so a dispatch needs no size check */
    struct cas_carc_hooks hooks;
    const char *id;
    void *xctx;
    size_t state_off; /* offset of its block inside the state */
};

struct carc_phase_ref {
    const struct cas_carc_phase *phase;
    int exp;
};

/* What a game's options build once and nothing changes after: the tile
 * kinds and the requirement patterns' masks.  Flat (no pointers), so the
 * host may keep one copy for every game of the same options (ABI 1.3
 * share; docs/abi.md "ABI 1.3: shared data"). */
struct carc_tables {
    /* each requirement pattern's packed edges and required sides
     * (cas__carc_pattern_masks), looked up on the placement paths */
    uint32_t pattern_req[CARC_PATTERNS], pattern_care[CARC_PATTERNS];
    /* where in this block the kinds' SVG symbols lie, as every picture
     * defines them (cas__carc_kind_symbol): nkinds + 1 uint32_t offsets
     * into the text that follows them; 0 when the block holds none */
    size_t symbols_at;
    struct carc_kind kinds[]; /* nkinds */
};

struct cas_game {
    const struct cas_host *host;
    int nplayers;
    int farmers;
    int nkinds;
    int start_kind;
    /* The tile kinds: while game_new builds them, own_kinds (writable) and
     * kinds are the same array; then they move into tables and own_kinds
     * is NULL.  tables is the host's shared copy when tables_shared. */
    const struct carc_kind *kinds;
    struct carc_kind *own_kinds;
    const struct carc_tables *tables;
    int tables_shared;
    const uint32_t *pattern_req, *pattern_care; /* tables' */
    int nattrs;
    char attrs[CARC_MAX_ATTRS][16];
    int coat_attr;
    int nfig;
    struct carc_figkind fig[CARC_MAX_FIGKINDS];
    unsigned escorted; /* bit f: figure kind f is CAS_CARC_FIG_ESCORTED */
    int nexp;
    struct carc_expansion exp[CARC_MAX_EXPANSIONS];
    /* bit i: expansion i has that hook, run at every turn */
    unsigned tile_placed_hooks, turn_scoring_hooks, turn_end_hooks;
    /* each expansion's context and state block, by hash of the context
     * (xctx NULL: empty), for api->xstate (expansion.c) */
    struct {
        const void *xctx;
        size_t state_off;
    } xblocks[16];
    uint64_t xslot_multiplier; /* odd; context_slot's hash */
    int nphases;
    struct carc_phase_ref phases[CARC_MAX_PHASES];
    /* bit i of slot_phases[slot]: phase i sits in that slot (enum
     * cas_carc_slot), so a slot without phases costs no walk */
    uint16_t slot_phases[CAS_CARC_TURN_END + 1];
    int multi_cell; /* some tile kind covers more than one space */
    /* bit k % 64 of word k / 64: tile kind k has a cloister, tested without
     * touching the kind itself */
    uint64_t cloister_kinds[(CARC_MAX_KINDS + 63) / 64];
    /* capacities */
    int cap_tiles, cap_cells, cap_nodes, cap_figs, cap_cloisters, hash_size;
    int hash_shift; /* 64 - log2(hash_size) */
    int bag_size; /* copies in the bag at the start, the tickets' room */
    /* state layout: byte offsets from the state start */
    size_t off_bag, off_bag_kinds, off_bag_tickets, off_bag_ends, off_ghead, off_gcount, off_tiles, off_cells, off_hash, off_front, off_nodes,
        off_figs, off_cloisters, state_size;
};

/* ------------------------------------------------------------ state */

struct carc_tile {
    uint16_t kind;
    uint8_t rot;
    int8_t player;
    int16_t x, y;
    uint16_t node_base;
};

struct carc_cell {
    int16_t x, y;
    uint16_t tile;  /* placement index, CARC_NONE for an open (frontier) spot */
    uint8_t sub;    /* which cell of its tile */
    uint8_t open;   /* in the frontier (empty and next to a tile): how many of
                       its four sides face a tile; 0 for any other cell */
    uint16_t pattern;   /* open spots: the requirement as a base-5 number */
    uint16_t gnext, gprev; /* open spots: neighbours in the pattern's group */
    uint16_t fpos;         /* open spots: index in the frontier */
};

#define NODE_SCORED 1u /* completed (or scored at the end) and handled */

struct carc_node {
    uint16_t root, next, size;
    int16_t open;
    uint16_t tile;
    uint8_t local, flags;
    uint8_t cls;  /* enum cas_carc_class, copied from the tile kind */
    uint8_t figs; /* roots: figures standing on the feature, so occupancy
                     and "no figure here" answers need no walk */
    uint8_t attr[CARC_MAX_ATTRS];
};

/* The cells hash is an array of uint16_t slots holding cell index + 1
 * (0: empty); a slot's coordinates are its cell's, so a slot is 2 bytes. */


/* A placement holding a cloister, with its anchor and how many spaces it
 * covers, so the walk for cloisters near a new tile reads one array. */
struct carc_cloister {
    uint16_t tile, node; /* the placement and its cloister feature */
    int16_t x, y;
    uint16_t ncells;
};

struct carc_fig {
    uint8_t player, kind;
    uint16_t node;
};

/* Engine stages of a turn; see turn.c. */
enum carc_stage {
    ST_TURN_START, ST_SLOT_BEFORE_DRAW, ST_DRAW, ST_PLACE, ST_SLOT_AFTER_PLACE,
    ST_DEPLOY, ST_SLOT_AFTER_DEPLOY, ST_SCORE, ST_SLOT_AFTER_SCORING,
    ST_TURN_FINISH, ST_SLOT_TURN_END, ST_NEXT_PLAYER, ST_XPHASE, ST_END
};

struct cas_state {
    const struct cas_game *game;
    const struct cas_event_sink *sink; /* only during apply */
    uint8_t stage, resume;  /* resume: slot stage an ST_XPHASE belongs to */
    uint8_t player, xphase;
    int8_t xactor;
    /* bit i: phase i answered CAS_CARC_PHASE_RETIRE and is asked no more;
     * not serialized (a loaded state asks again and is told the same) */
    uint16_t retired;
    uint8_t extra_turn, in_extra_turn, placed_by_phase;
    uint8_t placed_sides; /* bit b: the tile placed last has a tile on its side b */
    uint16_t placed_beside[4]; /* and which tile, for the bits set */
    uint16_t drawn;   /* tile kind drawn this turn */
    int16_t placed;   /* placement index this turn, -1 before */
    uint16_t ntiles, ncells, nfront, nnodes, nfigs, bag_left, discarded;
    uint16_t ncloisters; /* cloisters not yet scored, in placement order */
    /* bit x & 31 of word y & 31: space x,y may lie in the ring of one of
     * them (scoring.c): most placements complete none, told in two reads */
    uint32_t cloister_rings[CARC_RING_WORDS];
    uint16_t nenclosed;  /* open spots with a tile on all four sides */
    /* roads [CAS_CARC_ROAD] and cities [CAS_CARC_CITY] without an open edge:
     * an edge never opens again, so each is counted once, as it closes */
    uint16_t nclosed[CAS_CARC_CITY + 1];
    /* Groups of open spots by requirement pattern: which are non-empty, and
     * for those, the first spot (cell) and how many (arrays in the state). */
    uint64_t groups[CARC_PATTERN_WORDS];
    uint16_t bag_kinds;  /* kinds with copies left in the bag */
    int64_t score[CARC_MAX_PLAYERS];
    uint8_t supply[CARC_MAX_PLAYERS][CARC_MAX_FIGKINDS];
};

#define S_ARR(s, type, off) ((type *)((char *)(s) + (s)->game->off))
#define S_CARR(s, type, off) ((const type *)((const char *)(s) + (s)->game->off))
#define S_BAG(s) S_ARR(s, uint16_t, off_bag)
#define S_BAG_KINDS(s) S_ARR(s, uint16_t, off_bag_kinds)
#define S_BAG_TICKETS(s) S_ARR(s, uint8_t, off_bag_tickets)
#define S_BAG_ENDS(s) S_ARR(s, uint16_t, off_bag_ends)
#define S_GHEAD(s) S_ARR(s, uint16_t, off_ghead)
#define S_GCOUNT(s) S_ARR(s, uint16_t, off_gcount)
#define S_TILES(s) S_ARR(s, struct carc_tile, off_tiles)
#define S_CELLS(s) S_ARR(s, struct carc_cell, off_cells)
#define S_HASH(s) S_ARR(s, uint16_t, off_hash)
#define S_FRONT(s) S_ARR(s, uint16_t, off_front) /* open spots' cells, unordered */
#define S_CLOISTERS(s) S_ARR(s, struct carc_cloister, off_cloisters)
#define S_NODES(s) S_ARR(s, struct carc_node, off_nodes)
#define S_FIGS(s) S_ARR(s, struct carc_fig, off_figs)
#define C_BAG(s) S_CARR(s, uint16_t, off_bag)
#define C_BAG_KINDS(s) S_CARR(s, uint16_t, off_bag_kinds)
#define C_BAG_TICKETS(s) S_CARR(s, uint8_t, off_bag_tickets)
#define C_BAG_ENDS(s) S_CARR(s, uint16_t, off_bag_ends)
#define C_GHEAD(s) S_CARR(s, uint16_t, off_ghead)
#define C_GCOUNT(s) S_CARR(s, uint16_t, off_gcount)
#define C_TILES(s) S_CARR(s, struct carc_tile, off_tiles)
#define C_CELLS(s) S_CARR(s, struct carc_cell, off_cells)
#define C_HASH(s) S_CARR(s, uint16_t, off_hash)
#define C_FRONT(s) S_CARR(s, uint16_t, off_front)
#define C_CLOISTERS(s) S_CARR(s, struct carc_cloister, off_cloisters)
#define C_NODES(s) S_CARR(s, struct carc_node, off_nodes)
#define C_FIGS(s) S_CARR(s, struct carc_fig, off_figs)

/* Handles lent to expansions are the state itself. */
#define CARC_OF(s) ((cas_carc *)(s))
#define CARC_COF(s) ((const cas_carc *)(s))
#define STATE_OF(c) ((struct cas_state *)(c))
#define CSTATE_OF(c) ((const struct cas_state *)(c))

/* ------------------------------------------------------------ tileset.c */

/* Parse tile set file `path` and append its kinds to *kinds (grown with
 * host->realloc; the caller owns the array).  attrs names the attributes
 * tiles may use.  Errors name path:line via host->set_error; on error the
 * kinds already appended stay valid but the caller should discard them.
 * *start_kind is set if the file names a start tile. */
int cas__carc_parse_tileset(const struct cas_host *host, const char *path,
                            struct carc_kind **kinds, int *nkinds,
                            char (*attrs)[16], int nattrs, int *start_kind);
/* Apply a `tiles` option ("*:0,D:2,E:3") to the kinds' counts. */
int cas__carc_apply_counts(const struct cas_host *host, const char *spec,
                           struct carc_kind *kinds, int nkinds);
/* The packed edge requirement of pattern p (base 5 a side, 0 free): edge
 * types 8 bits a side, and the sides that are required. */
void cas__carc_pattern_masks(int p, uint32_t *req, uint32_t *care);
/* Fill each kind's four rotations (edges, segments, feature names). */
void cas__carc_prepare_rotations(struct carc_kind *kinds, int nkinds);
extern const char *const cas__carc_half_names[8];
extern const char cas__carc_side_names[4];

/* ------------------------------------------------------------ bag.c */

/* Every tile kind's copies into the bag (hand tiles stay out). */
void cas__carc_bag_fill(struct cas_state *s);
/* Rebuild bag_left and the list of kinds left from the per-kind counts
 * (after reading them from bytes). */
void cas__carc_bag_index(struct cas_state *s);
/* One copy of kind (which must be in the bag) leaves it. */
void cas__carc_bag_take(struct cas_state *s, int kind);
/* The kind of draw ticket `ticket` (< bag_left) when the kinds, in order,
 * hold as many consecutive tickets as they have copies. */
int cas__carc_bag_kind_of_ticket(const struct cas_state *s, uint64_t ticket);

/* ------------------------------------------------------------ board.c */

int cas__carc_cell_find(const struct cas_state *s, int x, int y); /* -1 none */
int cas__carc_tile_at(const struct cas_state *s, int x, int y);   /* -1 none */
/* The tiles on the four spaces diagonal to x,y (NW, NE, SE, SW), -1 where
 * there is none. */
void cas__carc_diagonal_tiles(const struct cas_state *s, int x, int y, int tile[4]);
/* Can `kind` go at anchor x,y rotated rot (edges, emptiness, contact,
 * expansion vetoes)? */
int cas__carc_fits(const struct cas_state *s, int kind, int x, int y, int rot);
/* Is placement code a (of tile kind `kind`) legal in this state? */
int cas__carc_placement_legal(const struct cas_state *s, cas_action a, int kind);
/* The same, and where a legal one goes: its anchor and rotation. */
int cas__carc_placement_legal_at(const struct cas_state *s, cas_action a, int kind, int *x,
                                 int *y, int *rot);
/* Edges, emptiness and contact only (no expansion vetoes). */
int cas__carc_fits_edges(const struct cas_state *s, const struct carc_kind *k,
                         int x, int y, int rot);
/* Legal placement codes of `kind`, sorted unique; buffer protocol. */
int cas__carc_placements(const struct cas_state *s, int kind, cas_action *buf,
                         size_t cap, size_t *count);
int cas__carc_fits_anywhere(const struct cas_state *s, int kind);
/* random_action's placement of `kind` (turn.c): for a one-space tile
 * that no expansion may veto now, one number drawn below the listing's
 * count (from the groups' sizes) and the listing's code at that index,
 * found without writing the listing.  CAS_ENOTFOUND for another tile (the
 * caller lists), CAS_EINVAL when it fits nowhere. */
int cas__carc_random_placement(const struct cas_state *s, int kind, const struct cas_rng *rng,
                               cas_action *out);
/* The placement code of kind at anchor x,y rotated rot: a spot code for a
 * one-space tile on an open spot, else (x, y) coordinates; legal or not. */
cas_action cas__carc_placement_code(const struct cas_state *s, int kind, int x, int y,
                                    int rot);
/* Kind, anchor and rotation of a placement code of this state; CAS_EINVAL
 * for a spot code naming no open spot. */
int cas__carc_placement_of(const struct cas_state *s, cas_action a, int *kind, int *x,
                           int *y, int *rot);
/* Sort codes ascending and drop duplicates; returns the new length. */
size_t cas__carc_sort_unique(cas_action *a, size_t n);
/* Put a tile on the board (no legality check) and merge its features.
 * Returns the placement index. */
int cas__carc_place(struct cas_state *s, int kind, int x, int y, int rot,
                    int player);

/* ------------------------------------------------------------ features.c */

static inline int carc_root(const struct cas_state *s, int node)
{
    return C_NODES(s)[node].root;
}
/* Join the features of nodes a and b (open counts and attributes add up);
 * returns the root of the union. */
int cas__carc_union(struct cas_state *s, int a, int b);
/* Distinct spaces and tiles a feature (any member node) covers. */
void cas__carc_feature_size(const struct cas_state *s, int node, int *spaces,
                            int *tiles);
/* Filled spaces around the tile of cloister node, and the ring size. */
void cas__carc_ring(const struct cas_state *s, int node, int *filled, int *size);
/* Road/city without open edge, or cloister with a full ring. */
int cas__carc_feature_complete(const struct cas_state *s, int node);
/* Distinct completed cities a field touches. */
int cas__carc_field_cities(const struct cas_state *s, int node);
/* Bit f: feature f of kind k is of one of `classes` (CAS_CARC_CLASS_BIT
 * mask; other bits ignored). */
static inline uint16_t cas__carc_parts_of_classes(const struct carc_kind *k, unsigned classes)
{
    _Static_assert(CAS_CARC_ROAD == 1 && CAS_CARC_CLOISTER == 4, "classes 1 to 4");
    return k->of_classes[classes >> 1 & ((1u << CAS_CARC_CLOISTER) - 1)];
}

/* enum cas_carc_class of a node, and its definition in the tile kind. */
static inline int cas__carc_feature_class(const struct cas_state *s, int node)
{
    return C_NODES(s)[node].cls;
}
const struct carc_feature_def *cas__carc_fdef(const struct cas_state *s, int node);

/* ------------------------------------------------------------ figures.c */

/* Whether any figure stands on the feature with this root. */
static inline int carc_occupied(const struct cas_state *s, int root)
{
    return C_NODES(s)[root].figs > 0;
}
/* May player deploy a figure of figkind on node's feature now? */
int cas__carc_deploy_legal(const struct cas_state *s, int player, int figkind,
                           int node);
/* Why not, in words, into buf (for an illegal deployment's error). */
void cas__carc_deploy_refusal(const struct cas_state *s, int player, int figkind, int node,
                              char *buf, size_t cap);
/* Why tile kind may not go at x,y turned rot, in words, into buf. */
void cas__carc_placement_refusal(const struct cas_state *s, int kind, int x, int y, int rot,
                                 char *buf, size_t cap);
/* Deploy action locals of CORNER figure kinds: CARC_CORNER_LOCAL + corner
 * (0 NW, 1 NE, 2 SE, 3 SW of the placed tile). */
#define CARC_CORNER_LOCAL 16
/* The node a deploy of figkind at `local` on this turn's tile stands on,
 * or -1 when there is none (no such feature, corner not four fields). */
int cas__carc_deploy_node(const struct cas_state *s, int figkind, int local);
/* Fill each tile kind's deploy_features, once the figure kinds are known. */
void cas__carc_prepare_deploys(struct cas_game *g);
/* Deploy options on this turn's tile plus pass; buffer protocol. */
int cas__carc_deploy_actions(const struct cas_state *s, cas_action *buf,
                             size_t cap, size_t *count);
/* Take a figure from the supply onto node / put figure `fig` back (the
 * last figure moves into its slot). */
void cas__carc_deploy(struct cas_state *s, int player, int figkind, int node);
/* Stand a figure on node without touching the supply (deploying, and
 * rebuilding a serialized state). */
void cas__carc_stand_figure(struct cas_state *s, int player, int figkind, int node);
void cas__carc_return_figure(struct cas_state *s, int fig);
/* Return the escorted figures (builder, pig) on the feature with this root
 * that figures just sent home from it left without a companion; only those
 * can have lost one. */
void cas__carc_return_escorted(struct cas_state *s, int root);
/* What figure `fig` adds to its owner's majority (hooks, then its kind). */
int cas__carc_strength(const struct cas_state *s, int fig);

/* ------------------------------------------------------------ scoring.c */

/* Tile t (just placed, with a cloister) joins the list of cloisters a
 * later placement may complete. */
void cas__carc_add_cloisters(struct cas_state *s, int t);
/* Score what this turn's tile completed (rules 5-9 of docs/rules). */
void cas__carc_score_turn(struct cas_state *s);
/* Score one feature (root) now: majority by strength, hooks, events, then
 * its figures without STAYS return. */
void cas__carc_score_feature(struct cas_state *s, int root, enum cas_carc_when when);
/* Score incomplete features and fields, then the expansions' final hooks. */
void cas__carc_final_scoring(struct cas_state *s);
/* What a score was for, for the event's 1.1 fields; NULL: not said. */
struct carc_score_about {
    const char *category; /* the feature's name: "road", "city", "monastery" */
    const char *subject;  /* "road at 1,0" */
    int final;
};
/* Add points with an event "Red +3 road (3 tiles)" when a sink listens. */
void cas__carc_add_score(struct cas_state *s, int player, int64_t points,
                         const char *reason, const struct carc_score_about *about);
/* "game over; winner: Red Blue with 34" into buf (truncated to cap). */
void cas__carc_winners_text(const struct cas_state *s, char *buf, size_t cap);
/* Emit an event to the apply() sink, if any; text is copied by the sink. */
void cas__carc_event(struct cas_state *s, enum cas_event_kind kind, int player,
                     int64_t points, const char *text);

/* ------------------------------------------------------------ turn.c */

/* Run the turn machine until a decision is needed. */
void cas__carc_advance(struct cas_state *s);
int cas__carc_current(const struct cas_state *s);
int cas__carc_legal(const struct cas_state *s, cas_action *buf, size_t cap,
                    size_t *count);
int cas__carc_apply(struct cas_state *s, cas_action a);
int cas__carc_is_legal(const struct cas_state *s, cas_action a);
/* random_action (plugin.h 1.2): one legal action drawn with rng->below
 * called once, with the count legal_actions would list, and the listed
 * action at the index drawn; so a game played with it is the game played
 * by picking from the listing with the same numbers.  CAS_EINVAL at a draw
 * or the end. */
int cas__carc_random_action(const struct cas_state *s, const struct cas_rng *rng,
                            cas_action *out);

/* ------------------------------------------------------------ expansion.c */

extern const struct cas_carc_api cas__carc_api;
int cas__carc_load_expansions(struct cas_game *g,
                              const struct cas_game_params *params,
                              size_t *bad_option);
/* Call each expansion's init once the game is complete. */
int cas__carc_init_expansions(struct cas_game *g,
                              const struct cas_game_params *params,
                              size_t *bad_option);
void cas__carc_fini_expansions(struct cas_game *g);
/* After init: mark the tile kinds some expansion's veto_placement or
 * veto_area may forbid (vetoes_kind), and the figure kinds its veto_deploy
 * may forbid on each (vetoes_deploy). */
void cas__carc_mark_vetoed_kinds(struct cas_game *g);
int64_t cas__carc_hook_points(const struct cas_state *s, int node,
                              enum cas_carc_when when, int winner, int64_t pts);
/* The category of winner's score for node: `category` (the feature's
 * name) through every expansion's score_category (CHAIN, 1.3). */
const char *cas__carc_hook_category(const struct cas_state *s, int node,
                                    enum cas_carc_when when, int winner,
                                    const char *category);
/* Nonzero if an expansion vetoes placing `kind` at x,y rotated rot. */
int cas__carc_hook_veto_place(const struct cas_state *s, int kind, int x, int y,
                              int rot);
/* The vetoes of one listing of a kind's placements, gathered once: the
 * boxes of forbidden spaces (veto_area, 1.4) and the expansions still to
 * ask per placement (veto_placement). */
struct carc_veto {
    unsigned ask; /* bit i: ask expansion i's veto_placement */
    int nboxes;
    int boxes[CAS_CARC_VETO_BOXES * 4]; /* x0,y0,x1,y1 each */
};
/* Gather the vetoes of `kind` now into *v; nonzero if any may forbid a
 * placement (else no placement of `kind` needs asking). */
int cas__carc_veto_begin(const struct cas_state *s, int kind, struct carc_veto *v);
/* Nonzero if one of the expansions in `ask` vetoes the placement through
 * veto_placement. */
int cas__carc_veto_ask(const struct cas_state *s, unsigned ask, int kind, int x, int y,
                       int rot);

_Static_assert(CARC_MAX_CELLS <= 2, "cas__carc_veto_hits takes a tile's spaces for a "
                                    "rectangle: its first and last cells' box");

/* Nonzero if a box of *v holds space x,y: no placement covering it is
 * allowed. */
static inline int cas__carc_veto_covers(const struct carc_veto *v, int x, int y)
{
    for (const int *b = v->boxes, *end = b + 4 * v->nboxes; b < end; b += 4)
        if (x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3])
            return 1;
    return 0;
}

/* Nonzero if *v (from cas__carc_veto_begin on s, kind) forbids placing
 * `kind` at x,y rotated rot.  Inlined into the placement scans: a tile's
 * spaces fill their bounding box (1x1, 2x1), so a box of forbidden spaces
 * forbids the tile when the two boxes meet. */
static inline int cas__carc_veto_hits(const struct cas_state *s, const struct carc_veto *v,
                                      int kind, int x, int y, int rot)
{
    const struct carc_kind *k = &s->game->kinds[kind];
    const struct carc_rot *r = &k->rot[rot];
    int last = k->ncells - 1, ax = r->dx[0], bx = r->dx[last], ay = r->dy[0],
        by = r->dy[last];
    int x0 = x + (ax < bx ? ax : bx), x1 = x + (ax < bx ? bx : ax);
    int y0 = y + (ay < by ? ay : by), y1 = y + (ay < by ? by : ay);
    for (const int *b = v->boxes, *end = b + 4 * v->nboxes; b < end; b += 4)
        if (x0 <= b[2] && x1 >= b[0] && y0 <= b[3] && y1 >= b[1])
            return 1;
    return v->ask && cas__carc_veto_ask(s, v->ask, kind, x, y, rot);
}
/* VETO: may player's figure of `kind` not stand on part `node`?  Asks only
 * the expansions whose vetoes_deploy named the kind of node's tile, and
 * hands them the part (1.5). */
int cas__carc_hook_veto_deploy(const struct cas_state *s, int player, int kind,
                               int node);
/* FIRST: an expansion's strength for figure `fig` on node, or
 * CAS_CARC_NO_ANSWER. */
int cas__carc_hook_strength(const struct cas_state *s, int fig, int node);
void cas__carc_hook_tile_placed(struct cas_state *s, int tile);
void cas__carc_hook_completed(struct cas_state *s, int node);
void cas__carc_hook_scored(struct cas_state *s, int node, enum cas_carc_when when,
                           const int64_t *points);
void cas__carc_hook_final(struct cas_state *s);
void cas__carc_hook_turn_end(struct cas_state *s);
void cas__carc_hook_turn_scoring(struct cas_state *s);
/* ANY: does some expansion keep the game going at an empty bag? */
int cas__carc_hook_bag_empty(struct cas_state *s);
void cas__carc_init_xstates(struct cas_state *s);

/* ------------------------------------------------------------ notation.c */

/* A short text (an action's, a label) written piece by piece into a
 * caller's buffer as snprintf would (cut to fit, always terminated),
 * without a printf per piece: the host asks for every legal action's text
 * at every move, the picture labels its marks. */
struct carc_text {
    char *buf;
    size_t cap, len; /* len counts what did not fit too */
};

static inline void carc_text_n(struct carc_text *t, const char *data, size_t n)
{
    size_t room = t->len + 1 < t->cap ? t->cap - 1 - t->len : 0;
    if (room)
        memcpy(t->buf + t->len, data, n < room ? n : room);
    t->len += n;
}

static inline void carc_text_s(struct carc_text *t, const char *s)
{
    carc_text_n(t, s, strlen(s));
}

static inline void carc_text_i(struct carc_text *t, int v)
{
    char digits[20];
    carc_text_n(t, digits, cas_out_sdigits(digits, v));
}

/* Its length, or CAS_ENOSPC when it was cut. */
static inline int carc_text_end(struct carc_text *t)
{
    if (t->cap)
        t->buf[t->len < t->cap ? t->len : t->cap - 1] = '\0';
    return t->len >= t->cap ? CAS_ENOSPC : (int)t->len;
}

int cas__carc_action_text(const struct cas_state *s, cas_action a, char *buf,
                          size_t cap);
int cas__carc_parse_action(const struct cas_state *s, const char *text,
                           cas_action *out);
/* "Red", "Blue", ... */
extern const char *const cas__carc_colours[CARC_MAX_PLAYERS];
/* How actions are written, for a player's `help`: the game's, then each
 * expansion's own (1.8 notation_help). */
int cas__carc_notation_help(const struct cas_game *g, const struct cas_writer *out);
/* import_foreign (plugin.h) for "jcz": JCloisterZone 5.x saved games. */
int cas__carc_import_foreign(const struct cas_host *host, const char *format,
                             const struct cas_json *doc, const struct cas_writer *out);

/* ------------------------------------------------------------ render.c */

int cas__carc_render(const struct cas_state *s, int viewer,
                     enum cas_render_format format, const struct cas_writer *out);
/* The decision view: the board with choice i + 1 (actions[i]) numbered
 * where it would place the drawn tile, then the drawn tile in each
 * rotation, or the placed tile with its deploy choices.  JSON is render's. */
int cas__carc_render_choices(const struct cas_state *s, int viewer,
                             enum cas_render_format format, const cas_action *actions,
                             size_t n, const struct cas_writer *out);

/* ------------------------------------------------------------ marks.c */

/* What a click in the decision picture names (click to play): a space (a
 * spot to place on, an abbey's hole), a rotation of a tile kind, a feature
 * or a corner of a placed tile, a figure kind, a tile kind from a hand. */
enum carc_mark_type { MARK_PICK, MARK_SPACE, MARK_ROT, MARK_FEATURE, MARK_CORNER,
                      MARK_FIGURE };
struct carc_mark_key {
    uint8_t type, step; /* enum carc_mark_type; the click it is, from 1 */
    int a, b;           /* PICK kind; SPACE x,y; ROT kind,rot; FEATURE and
                           CORNER tile,feature/corner; FIGURE figure kind */
};
struct carc_mark_item {
    struct carc_mark_key key;
    uint32_t index; /* into the actions */
};
/* Every action's keys, sorted by key then action index, so the items of
 * one element (one key) are a run with ascending indices. */
struct carc_marks {
    struct carc_mark_item *items;
    size_t n;
};
/* Work out the marks of actions[0..n) in s (items from the game's host
 * allocator: free with cas__carc_marks_free).  Actions nothing names (pass,
 * a keep) get no item.  CAS_ENOMEM. */
int cas__carc_marks(const struct cas_state *s, const cas_action *actions, size_t n,
                    struct carc_marks *out);
void cas__carc_marks_free(const struct cas_state *s, struct carc_marks *m);
/* The end of the run of items with the key of item `at`. */
size_t cas__carc_mark_run(const struct carc_marks *m, size_t at);
/* words[0..n) in ascending order (scratch: room for n more), without
 * libc's qsort (see marks.c) or a call per comparison. */
void cas__carc_sort_words(uint64_t *words, size_t n, uint64_t *scratch);

/* ------------------------------------------------------------ svg.c */

/* The board as one self-contained SVG 1.1 document.  The base game hides
 * nothing; expansions' notes (their text render) are drawn for `viewer`. */
int cas__carc_render_svg(const struct cas_state *s, int viewer, const struct cas_writer *out);
/* The decision view as a picture: the board with each choice's number
 * where it points (CAS_RENDER_SVG), and with the click-to-play marks too
 * (CAS_RENDER_SVG_ACTIONS; CAS_EINVAL when no action is marked). */
int cas__carc_render_svg_choices(const struct cas_state *s, int viewer, int attributes,
                                 const cas_action *actions, size_t n,
                                 const struct cas_writer *out);
/* Tile kind ki's symbol (a keyed <defs>) as every picture defines it, from
 * g's kinds alone: written once into the shared tables (plugin.c), from
 * which a render copies it. */
int cas__carc_kind_symbol(const struct cas_game *g, int ki, const struct cas_writer *out);
/* ABI 1.4 render_since: the picture (SVG, or SVG_ACTIONS among req's
 * actions) relative to the one req->since stamped (svg.c). */
int cas__carc_render_since(const struct cas_state *s, struct cas_render_since *req);

/* ------------------------------------------------------------ serialize.c */

int cas__carc_serialize(const struct cas_state *s, uint8_t *buf, size_t cap,
                        size_t *len);
int cas__carc_deserialize(const struct cas_game *g, const uint8_t *buf,
                          size_t len, struct cas_state **out);
uint64_t cas__carc_hash(const struct cas_state *s);
#define CARC_ENCODING 1u

/* ------------------------------------------------------------ floor.c */

/* The bare placement loop of `castellan bench --floor` (plugin.h 1.1). */
int cas__carc_bench_floor(const struct cas_game *g, struct cas_floor_run *run);

/* ------------------------------------------------------------ plugin.c */

int cas__carc_state_alloc(const struct cas_game *g, struct cas_state **out);
/* Fresh state: bag filled, start tile placed, supplies full. */
void cas__carc_state_reset(struct cas_state *s);

#endif /* CARC_H */
