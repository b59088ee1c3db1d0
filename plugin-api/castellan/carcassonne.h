/*
 * castellan/carcassonne.h — the Carcassonne extension ABI: the only header a
 * new Carcassonne expansion needs (besides castellan/plugin.h).
 *
 * An expansion is an ordinary castellan plugin of kind CAS_KIND_EXPANSION
 * whose descriptor's `extension` points at a static const
 * struct cas_carc_expansion.  The host hands the session's expansions to the
 * carcassonne game plugin in resolved order (manifest after/before, then id);
 * the game checks CAS_CARC_ABI_MAJOR/MINOR here exactly like the host checks
 * the host ABI, then:
 *   1. parses the expansion's tile sets (files in its data folder) into the
 *      same bag as the base tiles, with the attributes it declares;
 *   2. adds its figure kinds to every player's supply;
 *   3. calls init() once per game and state_init() once per fresh state;
 *   4. calls its hooks at fixed points of every turn and its phases as new
 *      decision points, always in the resolved expansion order.
 *
 * Hook semantics are part of the contract (docs/plugin-guide/
 * carcassonne-expansions.md holds the version table and, row by row, which
 * hooks each mission expansion uses):
 *   CALL-ALL  every expansion's hook runs, in order; return values ignored.
 *   CHAIN     every expansion's hook runs, in order, each receiving the value
 *             the previous one returned (starting from the engine's value);
 *             the last value is used.
 *   VETO      hooks run in order until one returns nonzero: the thing is
 *             forbidden.  All must agree (return 0) for it to be allowed.
 *   FIRST     hooks run in order until one returns something other than
 *             CAS_CARC_NO_ANSWER; that answer is used, otherwise the
 *             engine's default.
 *   ANY       (1.2) every expansion's hook runs, in order; the answer is
 *             yes if any returned nonzero.
 *
 * Everything an expansion keeps per game state lives in its state block:
 * state_size bytes of plain data (fixed-width integers, no pointers) that the
 * engine stores inside its own state, so clone/copy are one memcpy, hashes
 * cover it, and serialize writes it verbatim (state_check validates it on
 * deserialize).  Expansions keep no global mutable state and never draw
 * randomness: chance is the host's.
 *
 * Handles: a `cas_carc` is one game state as lent to a hook, valid only
 * during the call.  Hooks receiving `const cas_carc *` may only query; hooks
 * receiving `cas_carc *` may also use the mutating services of the api.
 */
#ifndef CASTELLAN_CARCASSONNE_H
#define CASTELLAN_CARCASSONNE_H

#include <castellan/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CAS_CARC_ABI_MAJOR 1
#define CAS_CARC_ABI_MINOR 9

typedef struct cas_carc cas_carc;           /* a game state, lent to hooks */
typedef struct cas_carc_game cas_carc_game; /* the game (rules, tiles)     */

/* Feature classes.  Monasteries, gardens and German castles are all
 * CLOISTER-class: they complete when every space around their tile is
 * filled (8 around a 1x1 tile, 10 around a 2x1 tile). */
enum cas_carc_class {
    CAS_CARC_ROAD = 1,
    CAS_CARC_CITY = 2,
    CAS_CARC_FIELD = 3,
    CAS_CARC_CLOISTER = 4
};
#define CAS_CARC_CLASS_BIT(cls) (1u << (cls))

/* A feature on the board: a handle valid until the next tile placement
 * (placements merge features).  Negative: no feature. */
typedef int32_t cas_carc_feature;
#define CAS_CARC_NO_FEATURE ((cas_carc_feature)-1)

/* Returned by FIRST hooks that have nothing to say. */
#define CAS_CARC_NO_ANSWER (-1000000)

enum cas_carc_when {
    CAS_CARC_DURING = 1, /* a feature completed during the game      */
    CAS_CARC_FINAL = 2   /* final scoring of an incomplete feature/field */
};

struct cas_carc_feature_info {
    size_t struct_size;
    enum cas_carc_class cls;
    const char *name;  /* "road", "city", "field", "monastery", "garden", ... */
    int spaces;        /* distinct board spaces it covers (scoring size)  */
    int tiles;         /* distinct tiles it covers                        */
    int open_edges;    /* roads/cities: edges not yet met; 0 = complete   */
    int complete;      /* roads/cities: closed; cloisters: surrounded     */
    int ring_filled;   /* cloisters: filled spaces around its tile        */
    int ring_size;     /* cloisters: spaces around its tile (8 or 10)     */
    int completed_cities; /* fields: distinct completed cities it touches */
    int x, y;          /* board position of one space it covers           */
};

/* A figure standing on the board. */
struct cas_carc_figure {
    int id;            /* index in the figure table, for return/move      */
    int player;
    int kind;          /* index into the game's figure kinds (0 = meeple) */
    cas_carc_feature feature;
};

/* Figure kind flags. */
#define CAS_CARC_FIG_STAYS 1u    /* stays when its feature scores (pig, barn) */
#define CAS_CARC_FIG_JOINS 2u    /* may join an occupied feature (builder, pig,
                                    barn); its can_deploy decides            */
#define CAS_CARC_FIG_ESCORTED 4u /* stands only beside its owner's figure of
                                    a kind without this flag: deployed only
                                    there, returned as soon as none is left
                                    on its feature (builder, pig)            */
#define CAS_CARC_FIG_CORNER 8u   /* 1.2: deployed on a corner of the placed
                                    tile where four tiles meet with field in
                                    all four corners, instead of on one of its
                                    features; it stands on the placed tile's
                                    field there (barn).  Its classes must
                                    include FIELD; its can_deploy sees that
                                    field.  Notation `deploy barn corner X,Y NW`
                                    names the corner by the tile south-east
                                    of it.                                   */

/* A kind of figure.  The base game declares kind 0, "meeple" (7 per
 * player, strength 1, roads/cities/fields/cloisters).  Names are the
 * notation word: `deploy large-meeple road E+W`. */
struct cas_carc_figure_kind {
    size_t struct_size;
    const char *name;     /* [a-z-]+, unique in the game                  */
    int per_player;       /* supply per player: the default, when the
                             expansion declares no INT option named after
                             the kind in the plural (`barn`: `barns`),
                             which then gives the count                  */
    int strength;         /* weight in majorities; 0 never wins one       */
    uint32_t classes;     /* CAS_CARC_CLASS_BIT mask it may stand on      */
    uint32_t flags;       /* CAS_CARC_FIG_*                                */
    /* VETO for this kind only, after the engine's checks (class, supply,
     * occupancy unless JOINS).  NULL: allowed.  Return nonzero to forbid. */
    int (*can_deploy)(void *xctx, const cas_carc *c, int player,
                      cas_carc_feature feature);
    /* FIRST for this kind: its strength on `feature` (mayor: coats of arms).
     * NULL: `strength`. */
    int (*strength_on)(void *xctx, const cas_carc *c, int player,
                       cas_carc_feature feature);
};

/* Hooks.  Any pointer may be NULL.  `player` is the active player. */
struct cas_carc_hooks {
    size_t struct_size;
    /* CALL-ALL: a tile was placed (bag, hand or expansion source) and its
     * features merged, before figures are deployed.  `tile` is the
     * placement index (api->tile_info). */
    void (*tile_placed)(void *xctx, cas_carc *c, int player, int tile);
    /* CALL-ALL: a road, city or cloister has just become complete by this
     * turn's tile, before it is scored (goods, King, Robber Baron). */
    void (*feature_completed)(void *xctx, cas_carc *c, int player,
                              cas_carc_feature feature);
    /* CALL-ALL: `feature` was scored (points[p] each player got, 0 for
     * losers), before its figures return (wagon: remember who may move). */
    void (*feature_scored)(void *xctx, cas_carc *c, int player,
                           cas_carc_feature feature, enum cas_carc_when when,
                           const int64_t *points);
    /* CHAIN: points a majority winner gets for `feature`.  The engine's
     * value comes first (road 1/space, city 2/space + 2/coat, cloister
     * spaces, field 3/completed city; final: road 1, city 1+1, cloister
     * filled+1).  Inns, cathedrals, castles, pigs and barns fold in here. */
    int64_t (*feature_points)(void *xctx, const cas_carc *c,
                              cas_carc_feature feature,
                              enum cas_carc_when when, int winner,
                              int64_t points);
    /* VETO: placing tile kind `kind` with its anchor at x,y rotated `rot`
     * (0..3 quarter turns clockwise), edges already known to match. */
    int (*veto_placement)(void *xctx, const cas_carc *c, int kind, int x,
                          int y, int rot);
    /* VETO: deploying a figure of `kind` on `feature` (any kind).  Since
     * 1.5 `feature` is the part the figure would stand on (before, the
     * feature's root), so api->part_tile names its tile; and the hook is
     * also asked for figures an expansion moves onto a feature
     * (api->deploy_vetoed: the wagon), not only for the placed tile's. */
    int (*veto_deploy)(void *xctx, const cas_carc *c, int player, int kind,
                       cas_carc_feature feature);
    /* CALL-ALL: final scoring, after the engine scored incomplete features
     * and fields (goods majorities, King, Robber Baron, barns). */
    void (*final_scoring)(void *xctx, cas_carc *c);
    /* CALL-ALL: the turn of `player` ends (after scoring and phases). */
    void (*turn_end)(void *xctx, cas_carc *c, int player);
    /* FIRST: the strength figure `figure` (an id of api->figures_on) adds to
     * its owner's majority on `feature`, or CAS_CARC_NO_ANSWER.  Without an
     * answer the figure kind's strength_on / strength applies. */
    int (*figure_strength)(void *xctx, const cas_carc *c, int figure,
                           cas_carc_feature feature);
    /* ---- 1.2 */
    /* CALL-ALL: the scoring step of the turn, after the engine scored what
     * this turn's tile completed and before the AFTER_SCORING phases: what
     * else the turn's tile or figure causes to score (barn fields). */
    void (*turn_scoring)(void *xctx, cas_carc *c, int player);
    /* ANY: the bag is empty at the start of `player`'s turn
     * and the BEFORE_DRAW phases placed nothing.  Yes: the turn passes to
     * the next player, whose BEFORE_DRAW phases are asked in turn (a final
     * round of tiles from hand); no: the game ends.  An expansion must say
     * yes at most once per seat in a row, or the game never ends. */
    int (*bag_empty)(void *xctx, cas_carc *c, int player);
    /* Asked once per tile kind after init: nonzero if veto_placement (or
     * veto_area, 1.4) may forbid placements of `kind` (castles: the
     * no-touch rule).  Kinds nobody may veto keep the engine's unhooked
     * placement path.  NULL: they are asked for every kind. */
    int (*vetoes_kind)(void *xctx, const cas_carc_game *game, int kind);
    /* ---- 1.3 */
    /* CHAIN: the category of the score majority winner `winner` gets for
     * `feature` (the score event's `category`, one word [a-z-]).  The
     * engine's value comes first: the feature's name ("road", "city",
     * "monastery", "field"); an expansion whose rule changes that score
     * names it ("inn-road", "cathedral-city", "pig-field").  Return
     * `category` to keep it; a returned string must be static. */
    const char *(*score_category)(void *xctx, const cas_carc *c, cas_carc_feature feature,
                                  enum cas_carc_when when, int winner,
                                  const char *category);
    /* ---- 1.4 */
    /* Asked once per tile kind and figure kind after init: nonzero if
     * veto_deploy may forbid a figure of `figure_kind` on the features of
     * a placed tile of `tile_kind` (Inns & Cathedrals: only on IC-5).  The
     * others are never asked, which spares a call per candidate of every
     * deploy listing.  NULL: veto_deploy is asked for every deployment.
     * `tile_kind` is the kind of the tile holding the part (1.5: a moved
     * figure's destination may lie on another tile than the placed one). */
    int (*vetoes_deploy)(void *xctx, const cas_carc_game *game, int tile_kind,
                         int figure_kind);
    /* VETO, for a rule that forbids spaces (castles: none within one space
     * of another castle): the boxes of spaces no tile of `kind` may cover
     * now, as x0,y0,x1,y1 quadruples (inclusive) into boxes[0..4*cap);
     * *count = how many.  A placement covering a space of a box is vetoed,
     * exactly as if veto_placement had said so.  The engine asks once per
     * listing of `kind` (and once per single check) instead of once per
     * placement, and never asks this expansion's veto_placement for a
     * placement when this answers CAS_OK.  cap is at least
     * CAS_CARC_VETO_BOXES; on any other answer (CAS_ENOSPC: more boxes)
     * the engine asks veto_placement per placement, so an expansion whose
     * boxes may not fit must have it.  An older engine ignores this hook:
     * keep veto_placement giving the same answers. */
    int (*veto_area)(void *xctx, const cas_carc *c, int kind, int *boxes, size_t cap,
                     size_t *count);
};

/* The boxes an engine offers veto_area at the least (1.4). */
#define CAS_CARC_VETO_BOXES 16

/* Where an expansion phase sits in the turn. */
enum cas_carc_slot {
    CAS_CARC_BEFORE_DRAW = 1,   /* before the draw (abbey, castle from hand);
                                   also asked once the bag is empty          */
    CAS_CARC_AFTER_PLACE = 2,   /* tile placed, before the figure decision   */
    CAS_CARC_AFTER_DEPLOY = 3,  /* figure decided, before scoring            */
    CAS_CARC_AFTER_SCORING = 4, /* features scored (wagon moves)             */
    CAS_CARC_TURN_END = 5       /* last thing in a turn                      */
};

/* actor() result when the phase has nothing to decide now. */
#define CAS_CARC_PHASE_SKIP (-100)
/* actor() result (1.7): nothing to decide now, nor in any state that can
 * follow this one (every castle placed, every abbey used).  The engine
 * then asks this phase no more in this game, its copies included; a state
 * rebuilt from a record asks again and must be told the same.  Return it
 * only to a game of 1.7 or later (api->abi_minor >= 7): an older one reads
 * it as a player. */
#define CAS_CARC_PHASE_RETIRE (-101)
/* apply() results. */
#define CAS_CARC_PHASE_DONE 0  /* leave the phase                           */
#define CAS_CARC_PHASE_AGAIN 1 /* ask actor() again (next wagon owner, ...) */

/* A new decision point in the turn.  Its actions are 48-bit payloads the
 * expansion chooses; the engine wraps them into action codes and asks the
 * expansion for their canonical text, which must not start with a word the
 * engine uses (draw, place, deploy, pass). */
#define CAS_CARC_PAYLOAD_MASK ((UINT64_C(1) << 48) - 1)
struct cas_carc_phase {
    size_t struct_size;
    const char *name;
    enum cas_carc_slot slot;
    /* Who decides now: a player index, or CAS_CARC_PHASE_SKIP (or, since
     * 1.7, CAS_CARC_PHASE_RETIRE).  Asked at every pass through the slot,
     * every turn: keep it cheap. */
    int (*actor)(void *xctx, const cas_carc *c);
    /* Payloads of the legal actions, sorted ascending, unique, non-empty;
     * buffer protocol of cas_game_vtable.legal_actions. */
    int (*legal)(void *xctx, const cas_carc *c, uint64_t *payloads,
                 size_t cap, size_t *count);
    /* Apply a legal payload: CAS_CARC_PHASE_DONE, _AGAIN, or negative. */
    int (*apply)(void *xctx, cas_carc *c, uint64_t payload);
    /* Canonical text; same contract as cas_game_vtable.action_text. */
    int (*text)(void *xctx, const cas_carc *c, uint64_t payload, char *buf,
                size_t cap);
    /* Parse text into a payload; CAS_EPARSE if the text is not this
     * phase's (the engine then tries the others).  Since 1.3 the engine
     * also offers "pass" when the game's `pass` is not legal now: a phase
     * may read it as its decline (`abbey keep`), which is then stored in
     * its canonical text (lenient input, as JCloisterZone's PASS). */
    int (*parse)(void *xctx, const cas_carc *c, const char *text,
                 uint64_t *payload);
    /* ---- 1.2 */
    /* Nonzero if `payload` is one legal() would list now.  Optional: the
     * engine otherwise lists legal() and searches it, which is dear for a
     * long list (every placement of a tile from a hand). */
    int (*is_legal)(void *xctx, const cas_carc *c, uint64_t payload);
};

/* What a tile placement looks like, for queries. */
struct cas_carc_tile_info {
    size_t struct_size;
    const char *id;   /* tile id from the tile set ("D", "IC-1") */
    int kind;         /* index of its tile kind                  */
    int x, y, rot;    /* anchor space and quarter turns clockwise */
    int player;       /* who placed it; -1 for the start tile     */
};

/* Services the engine lends to expansions (passed to init; valid for the
 * game's lifetime).  Functions taking `cas_carc *` mutate the state and may
 * only be called from hooks/phases that received a mutable handle. */
struct cas_carc_api {
    size_t struct_size;
    uint16_t abi_major, abi_minor;
    /* ---- game-level queries */
    int (*attribute_index)(const cas_carc_game *g, const char *name); /* <0: none */
    int (*figure_kind_index)(const cas_carc_game *g, const char *name);
    int (*tile_kind_index)(const cas_carc_game *g, const char *id);
    int (*nplayers)(const cas_carc_game *g);
    /* ---- state queries */
    const cas_carc_game *(*game)(const cas_carc *c);
    void *(*xstate)(cas_carc *c, void *xctx);            /* own state block */
    const void *(*xstate_const)(const cas_carc *c, void *xctx);
    int (*active_player)(const cas_carc *c);
    int (*placed_tile)(const cas_carc *c); /* this turn's placement or -1 */
    int (*tile_count)(const cas_carc *c);  /* placements so far */
    int (*tile_info)(const cas_carc *c, int tile, struct cas_carc_tile_info *out);
    int (*tile_at)(const cas_carc *c, int x, int y); /* placement or -1 */
    /* Features of placement `tile`, in tile-set order; buffer protocol. */
    int (*tile_features)(const cas_carc *c, int tile, cas_carc_feature *buf,
                         size_t cap, size_t *count);
    int (*feature_info)(const cas_carc *c, cas_carc_feature f,
                        struct cas_carc_feature_info *out);
    int (*same_feature)(const cas_carc *c, cas_carc_feature a, cas_carc_feature b);
    int (*attribute)(const cas_carc *c, cas_carc_feature f, int attribute);
    int (*figures_on)(const cas_carc *c, cas_carc_feature f,
                      struct cas_carc_figure *buf, size_t cap, size_t *count);
    int (*supply)(const cas_carc *c, int player, int kind);
    int (*bag_left)(const cas_carc *c); /* tiles still in the bag */
    int (*can_place)(const cas_carc *c, int kind, int x, int y, int rot);
    /* Completed features of a class on the board so far. */
    int (*completed_count)(const cas_carc *c, enum cas_carc_class cls);
    /* ---- mutations */
    void (*add_score)(cas_carc *c, int player, int64_t points, const char *reason);
    void (*event)(cas_carc *c, int player, const char *text);
    int (*deploy)(cas_carc *c, int player, int kind, cas_carc_feature f);
    int (*return_figure)(cas_carc *c, int figure_id);
    /* Place a tile not drawn from the bag (abbey, castle from hand); the
     * turn continues with the figure decision for that tile. */
    int (*place_tile)(cas_carc *c, int kind, int x, int y, int rot);
    /* The active player plays another turn after this one (builder). */
    void (*grant_extra_turn)(cas_carc *c);
    /* Copies of a tile kind in this game (after count overrides); for a
     * `hand` kind, the most that may be placed. */
    int (*tile_kind_count)(const cas_carc_game *g, int kind);
    /* The open spots (empty spaces next to a tile) as x,y pairs in
     * xy[0..2*cap), sorted by x then y; buffer protocol on pairs. */
    int (*open_spots)(const cas_carc *c, int *xy, size_t cap, size_t *count);
    /* ---- 1.1 */
    /* The name the game gives `player` in events and renders ("Red" ...
     * "Pink"), or "nobody" out of range; static, never freed. */
    const char *(*player_label)(const cas_carc_game *g, int player);
    /* ---- 1.2: parts.  A feature handle names one part of a feature: one
     * feature of one placed tile (tile_features lists a tile's parts;
     * feature_info and the other queries see the whole feature). */
    /* The part figure `figure` (an id of figures_on) stands on, or
     * CAS_CARC_NO_FEATURE. */
    cas_carc_feature (*figure_part)(const cas_carc *c, int figure);
    /* The placement index of the tile holding part `f`, or -1. */
    int (*part_tile)(const cas_carc *c, cas_carc_feature f);
    /* Canonical text of part `f` on its tile in board orientation, as the
     * deploy action names it ("road E+W", "field Nw+Ne", "monastery");
     * same contract as cas_game_vtable.action_text. */
    int (*part_text)(const cas_carc *c, cas_carc_feature f, char *buf, size_t cap);
    /* Sides of its tile (board orientation, bit 0 N, 1 E, 2 S, 3 W; on a
     * 2x1 tile bits 4-7 for cell 1) that road or city part `f` touches; 0
     * for fields and cloisters.  One bit: a road that ends on the tile. */
    unsigned (*part_edges)(const cas_carc *c, cas_carc_feature f);
    /* Score feature f now as the engine scores a completed (DURING) or
     * final feature: majority by strength, feature_points CHAIN, events,
     * feature_scored CALL-ALL, then figures without STAYS return (and
     * ESCORTED ones left alone).  For expansions that score a feature
     * outside the engine's moments (a field when a barn arrives). */
    int (*score_feature)(cas_carc *c, cas_carc_feature f, enum cas_carc_when when);
    /* The class of feature f in O(1) (feature_info also measures it), or
     * 0 for no feature. */
    int (*feature_class)(const cas_carc *c, cas_carc_feature f);
    /* Every legal placement of tile kind `kind` now (any kind, bag or hand;
     * edges, contact and expansion vetoes), as x,y,rot triples in
     * xyr[0..3*cap), in the order of the engine's place actions (x, then
     * y, then rotation ascending); buffer protocol on triples.  For a 2x1
     * tile x,y is its anchor, cell 0. */
    int (*placements)(const cas_carc *c, int kind, int *xyr, size_t cap, size_t *count);
    /* 1 if tile kind `kind` has a legal placement now (placements would list
     * one), found by stopping at the first; 0 otherwise. */
    int (*fits_anywhere)(const cas_carc *c, int kind);
    /* ---- 1.3 */
    /* add_score that says what scored, for programs reading results: the
     * score event's category (one word [a-z-], static: "goods", "barn",
     * "king"), subject (which one in the game's words, copied: "wine",
     * "barn at 1,-1"; NULL for none) and whether it belongs to the final
     * scoring (`when`).  Players out of range are ignored.  Check
     * CAS_HAS_FIELD(api, struct cas_carc_api, add_score_about) and fall
     * back to add_score with a 1.2 game. */
    void (*add_score_about)(cas_carc *c, int player, int64_t points, const char *reason,
                            const char *category, const char *subject,
                            enum cas_carc_when when);
    /* ---- 1.4 */
    /* The open spots with a tile on all four sides (where an abbey may
     * go), as x,y pairs sorted by x then y; buffer protocol on pairs.  The
     * game keeps their number, so cap 0 answers *count in O(1). */
    int (*enclosed_spots)(const cas_carc *c, int *xy, size_t cap, size_t *count);
    /* 1 if feature f is complete (a road or city without open edges, a
     * cloister with its ring filled; feature_info's `complete`), without
     * measuring it; 0 otherwise and for fields and no feature. */
    int (*feature_complete)(const cas_carc *c, cas_carc_feature f);
    /* 1 if events (event, add_score's reason) reach anyone now: the game
     * is applying an action for a caller that records them.  0 during a
     * bot's playouts, when an expansion may skip formatting texts nobody
     * reads (scores must still be added).  Ask it through
     * cas_carc_events_wanted, which says 1 for a game without it. */
    int (*events_wanted)(const cas_carc *c);
    /* ---- 1.5 */
    /* 1 if a figure of `kind` of `player` may not stand on `part` as far as
     * the expansions' veto_deploy tell (asked as for a deployment there),
     * else 0; for a figure an expansion moves (the wagon), which must obey
     * the same vetoes as one deployed (the road stubs of IC-5).  The
     * engine's own deployment rules (classes, occupancy) are not asked. */
    int (*deploy_vetoed)(const cas_carc *c, int player, int kind, cas_carc_feature part);
    /* ---- 1.6 */
    /* The parts of placement `tile` whose class is in `classes` (a mask of
     * CAS_CARC_CLASS_BIT): bit i set for part *first + i, *first being the
     * tile's first part (tile_features lists *first, *first + 1, ...).
     * One call in O(1) for what tile_features and a feature_class a part
     * tell.  No such placement: 0, and *first is CAS_CARC_NO_FEATURE. */
    unsigned (*tile_parts_of)(const cas_carc *c, int tile, unsigned classes,
                              cas_carc_feature *first);
    /* ---- 1.9 */
    /* The parts of part p's tile that its tile kind links to p
     * (`wagon-links` in the tile set, docs/carcassonne-tiles.md: what
     * Abbey & Mayor's first-edition wagon calls directly connected), as
     * tile_parts_of's mask: bit i for the tile's first part + i.  `reading`
     * is CAS_CARC_LINKS_DEFAULT or CAS_CARC_LINKS_JCZ (JCloisterZone's
     * data, where a tile declares it; else the default's).  0 for none,
     * for no such part and for an unknown reading. */
    unsigned (*part_links)(const cas_carc *c, cas_carc_feature p, int reading);
};

/* part_links' readings (1.9). */
#define CAS_CARC_LINKS_DEFAULT 0
#define CAS_CARC_LINKS_JCZ 1
#define CAS_CARC_LINK_READINGS 2

/* events_wanted where the game has it (1.4), else 1: texts are built. */
static inline int cas_carc_events_wanted(const struct cas_carc_api *api, const cas_carc *c)
{
    return !CAS_HAS_FIELD(api, struct cas_carc_api, events_wanted) || !api->events_wanted ||
           api->events_wanted(c);
}

/* add_score_about where the game has it (1.3), else add_score: the points
 * are the same, only a 1.2 game's event does not say what scored. */
static inline void cas_carc_add_score_about(const struct cas_carc_api *api, cas_carc *c,
                                            int player, int64_t points, const char *reason,
                                            const char *category, const char *subject,
                                            enum cas_carc_when when)
{
    if (CAS_HAS_FIELD(api, struct cas_carc_api, add_score_about) && api->add_score_about)
        api->add_score_about(c, player, points, reason, category, subject, when);
    else
        api->add_score(c, player, points, reason);
}

/* The descriptor an expansion's cas_plugin.extension points at. */
struct cas_carc_expansion {
    size_t struct_size;
    uint16_t abi_major, abi_minor; /* CAS_CARC_ABI_MAJOR/MINOR built with */
    int max_players;               /* 6 if it adds a colour, else 0       */
    /* Tile set files in the expansion's data folder, merged into the bag. */
    const char *const *tile_sets;
    size_t n_tile_sets;
    /* Feature attributes its tiles use ("inn", "cathedral", "wine"). */
    const char *const *attributes;
    size_t n_attributes;
    const struct cas_carc_figure_kind *figures;
    size_t n_figures;
    size_t state_size; /* bytes of its per-state block; 0 for none */

    /* Once per game, after tiles and figure kinds are known.  Options are
     * the expansion's own, validated by the host.  *xctx is handed to every
     * hook; allocate it with host->alloc.  Return CAS_OK or CAS_EOPTION
     * (*bad_option set to the index in options; the host then names that
     * option) / other CAS_E* after host->set_error.  Whatever init
     * returns, the teardown below runs if *xctx was set. */
    int (*init)(const struct cas_carc_api *api, const struct cas_host *host,
                const cas_carc_game *game,
                const struct cas_option_value *options, size_t n_options,
                void **xctx, size_t *bad_option);
    /* Once per game, last: release *xctx.  Since 1.2 prefer fini_host
     * below, which is handed the host init received; fini is called only
     * when fini_host is absent.  May be NULL. */
    void (*fini)(void *xctx);
    /* Fill a fresh state block (zeroed before the call). */
    void (*state_init)(void *xctx, cas_carc *c, void *xstate);
    /* Validate a deserialized state block: CAS_OK or CAS_ECORRUPT. */
    int (*state_check)(void *xctx, const cas_carc *c, const void *xstate);
    /* Append the expansion's part of a render (its tokens, King holder). */
    int (*render)(void *xctx, const cas_carc *c, int viewer,
                  enum cas_render_format format, const struct cas_writer *out);

    const struct cas_carc_hooks *hooks;
    const struct cas_carc_phase *phases;
    size_t n_phases;

    /* ---- 1.2 */
    /* Once per game, last, instead of fini: release xctx, typically with
     * host->release(host->ctx, xctx).  host is the table init received.
     * May be NULL. */
    void (*fini_host)(void *xctx, const struct cas_host *host);

    /* ---- 1.6 */
    /* Once per game, after every expansion's init and before any state
     * exists: where this expansion's block lies, as a byte offset from a
     * state handle, the same for every state of the game.  The block of c
     * is then cas_carc_block(c, offset): what api->xstate answers, without
     * a call, for hooks that run every turn.  Called only for a block
     * (state_size > 0).  May be NULL; api->xstate works with any game. */
    void (*state_offset)(void *xctx, size_t offset);

    /* ---- 1.8 */
    /* What a player types for this expansion's actions and figures, with
     * an example each: lines of at most 78 columns, each ending in '\n',
     * "  TEXT   what it does" with continuations under the description.
     * The game's `help` (notation_help) prints it after its own, headed by
     * the expansion's id.  Static text; NULL for none. */
    const char *notation_help;
};

/* The block state_offset (1.6) placed at `offset` in state c. */
static inline void *cas_carc_block(cas_carc *c, size_t offset)
{
    return (char *)c + offset;
}

static inline const void *cas_carc_block_const(const cas_carc *c, size_t offset)
{
    return (const char *)c + offset;
}

#ifdef __cplusplus
}
#endif
#endif /* CASTELLAN_CARCASSONNE_H */
