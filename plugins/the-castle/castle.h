/*
 * castle.h — internal interfaces of the Carcassonne: The Castle plugin: tile
 * kinds and the board as read from the data folder, the game and state
 * handles, action codes, and the cross-file functions of its subsystems
 * (tiles, board, features, scoring, turn flow, notation, render, serialize).
 *
 * A state is plain data without pointers except `game`; its variable part
 * (the feature nodes) sits at the end, so a copy moves only what is used.
 * Placed things — the start spaces first, then castle tiles in the order
 * they were placed — are numbered by placement index; each owns a run of
 * feature nodes joined across edges by a union-find with member lists.
 */
#ifndef CASTLE_H
#define CASTLE_H

#include <castellan/plugin.h>
#include <stdbool.h>
#include <stdint.h>

#define NPLAYERS 2
#define FOLLOWERS 6       /* 7 per colour, one of them the score marker  */
#define MAX_KINDS 64      /* tile kinds (castle tiles and start tiles)   */
#define MAX_TF 12         /* features on one tile: 4 paths + 8 halves    */
#define MAX_GRID_W 24
#define MAX_GRID_H 24
#define MAX_GRID (MAX_GRID_W * MAX_GRID_H)
#define MAX_INTERIOR 120
#define MAX_STARTS 16
#define MAX_PLACED (MAX_INTERIOR + MAX_STARTS)
#define MAX_NODES (MAX_PLACED * MAX_TF)
#define MAX_TOWERS 32
#define MAX_PENDING 32
#define MAX_FIGS (2 * FOLLOWERS)
#define WALL_KINDS 9      /* wall tiles are numbered 1..9                */
#define NONE8 0xFFu
#define NONE16 0xFFFFu
#define ID_LEN 9

/* Feature classes. */
enum cls { C_PATH, C_HOUSE, C_TOWER, C_COURT, N_CLS };

/* A side of a square, clockwise; and its 3 slots, clockwise: first half,
 * middle (a path's place), second half.  Slot index = side * 3 + part. */
enum { SIDE_N, SIDE_E, SIDE_S, SIDE_W };
#define SLOTS 12
#define SLOT(side, part) ((side) * 3 + (part))
#define SLOT_SIDE(slot) ((slot) / 3)
#define SLOT_PART(slot) ((slot) % 3)
#define MIDDLE 1

/* What a wall tile does; its number 1..9 maps to one in the board file. */
enum wall_effect {
    W_EXTRA_TURN, W_DOUBLE_HOUSE, W_DOUBLE_TOWER, W_INCOMPLETE_PATH,
    W_INCOMPLETE_HOUSE, W_INCOMPLETE_TOWER, W_MARKET_BONUS, W_KEEP_BONUS,
    W_POINTS, N_EFFECTS
};

struct feature_def {
    uint8_t cls;
    uint8_t markets;  /* courts */
    uint8_t fountain; /* paths  */
};

/* A tile kind in one of its 4 rotations (90 degrees clockwise each). */
struct rotation {
    uint8_t slot[SLOTS]; /* board slot -> local feature, NONE8 if unused */
    uint8_t path_sides;  /* bit per board side with a path               */
    uint16_t sides[MAX_TF]; /* per feature: bit per board side it touches */
};

struct tile_kind {
    char id[ID_LEN];
    uint8_t count;    /* copies in the bag; 0 for a start tile        */
    bool start;       /* a start space's printed tile                 */
    uint8_t nf;
    int line;         /* where it was defined, for cross-file errors  */
    struct feature_def f[MAX_TF];
    struct rotation rot[4];
};

struct tileset {
    struct tile_kind kind[MAX_KINDS];
    int nkinds;
    int total;        /* castle tiles in the bag */
    bool provisional;
};

enum cell_type { CELL_WALL, CELL_INTERIOR, CELL_START };

struct start_space {
    char letter;
    uint16_t cell;
    uint8_t kind, rot;
};

struct tower {
    uint8_t pos;      /* covers pos and pos + 1 (mod track length) */
    bool holds;       /* a wall tile is dealt onto it at setup     */
};

struct board {
    int w, h;
    uint8_t cell[MAX_GRID];  /* enum cell_type */
    int16_t next[MAX_GRID][4]; /* neighbour across each side, -1 off the grid */
    int ninterior;
    uint16_t interior[MAX_INTERIOR]; /* the interior cells, in cell order */
    struct start_space start[MAX_STARTS];
    int nstarts;
    int track;               /* track length: scores wrap past it */
    struct tower tower[MAX_TOWERS];
    int ntowers;
    uint8_t wall_copies[WALL_KINDS + 1]; /* by number 1..9 */
    uint8_t wall_effect[WALL_KINDS + 1];
    uint8_t wall_amount[WALL_KINDS + 1];
    bool provisional;
};

struct cas_game {
    const struct cas_host *host;
    struct tileset tiles;
    struct board board;
};

/* ------------------------------------------------------------ state */

struct node {
    uint16_t root, next;   /* next: the following member of root's list */
    uint16_t size;         /* roots: members                            */
    int16_t open;          /* roots: (member, side) pairs facing an empty space */
    uint8_t placed, local;
    uint8_t cls, fountain, markets;
    uint8_t figs[NPLAYERS];/* roots: followers of each colour on it     */
};

struct placement {
    uint16_t cell;
    uint8_t kind, rot;
    uint16_t node_base;
};

struct figure {
    uint16_t node;
    uint8_t player;
};

struct player_state {
    int32_t score;
    uint8_t supply;          /* followers in hand */
    uint8_t keep_size;       /* tiles of the keep's house, 0: no keep */
    uint8_t keep_at;         /* placement index of a tile of that house */
    uint8_t held[WALL_KINDS + 1];  /* wall tiles in front of the player  */
    uint8_t fresh[WALL_KINDS + 1]; /* of those, taken since this player's
                                      own turn began: not usable yet     */
};

enum phase {
    PH_DRAW,    /* chance: the next tile from the bag                  */
    PH_PLACE,   /* turn player places the drawn tile                   */
    PH_FOLLOW,  /* turn player: a follower on the tile, or pass        */
    PH_SCORE,   /* turn player picks the next completed feature to score */
    PH_REVEAL,  /* chance: the face-down wall tile just taken          */
    PH_EXTRA,   /* turn player: use an extra-turn wall tile or end     */
    PH_OVER,
    N_PHASES
};

struct cas_state {
    const cas_game *game;
    uint8_t phase, turn, drawn, last; /* last: placement index this turn */
    int8_t reveal_player;             /* PH_REVEAL: who takes the tile   */
    uint8_t set_aside;
    uint16_t turns;
    uint8_t npending;
    uint16_t pending[MAX_PENDING];    /* completed roots still to resolve */
    struct player_state p[NPLAYERS];
    uint8_t pool[WALL_KINDS + 1];     /* wall tiles not yet face up, by number */
    uint8_t tower_holds[MAX_TOWERS];
    uint8_t bag[MAX_KINDS];
    uint8_t nbag;
    uint8_t nfigs;
    struct figure figs[MAX_FIGS];
    uint8_t at[MAX_GRID];             /* placement index on a cell, NONE8 */
    uint8_t nplaced;
    struct placement placed[MAX_PLACED];
    uint16_t nnodes;
    struct node nodes[MAX_NODES];     /* must stay last: copies stop at nnodes */
};

/* ---------------------------------------------------------- actions */

enum action_kind {
    A_DRAW = 1, A_PLACE, A_FOLLOW, A_PASS, A_SCORE, A_REVEAL, A_EXTRA, A_END_TURN
};

static inline cas_action act(int kind, unsigned a, unsigned b)
{
    return ((cas_action)kind << 40) | ((cas_action)(a & 0xFFFFu) << 16) | (b & 0xFFFFu);
}
static inline int act_kind(cas_action a) { return (int)(a >> 40); }
static inline unsigned act_a(cas_action a) { return (unsigned)((a >> 16) & 0xFFFFu); }
static inline unsigned act_b(cas_action a) { return (unsigned)(a & 0xFFFFu); }

/* A list of actions in a fixed buffer (placements: cells x 4 rotations). */
struct action_list {
    cas_action a[4 * MAX_INTERIOR + 64];
    size_t n;
};

/* ---------------------------------------------------------- lines.c */

/* One data file read line by line: '#' comments, words split on blanks. */
struct line_reader {
    const struct cas_host *host;
    const char *path;
    void *file;
    int line;
    char text[512];
    char *word[40];
    int nwords;
};
/* Open `path`; CAS_EIO (explained, naming `what` the option to check). */
int lines_open(struct line_reader *r, const struct cas_host *host, const char *path,
               const char *what);
/* Next line with words: 1; end of file: 0; error: negative (explained). */
int lines_next(struct line_reader *r);
void lines_close(struct line_reader *r);
/* Report "path:line: message" and return CAS_EDATA. */
int lines_fail(const struct line_reader *r, const char *fmt, ...) CAS_PRINTF(2, 3);
/* Parse a whole decimal number in [min, max]; false otherwise. */
bool parse_number(const char *word, long min, long max, long *out);
/* `provisional yes|no` (once per file). */
int lines_provisional(struct line_reader *r, bool *seen, bool *value);

/* ---------------------------------------------------------- tiles.c */

/* Parse a tile file (format in the file's header and plugins/the-castle/
 * README.md) into *out, overwritten only on success.  CAS_EIO / CAS_EDATA,
 * explained as path:line, value and fix. */
int tiles_load(const struct cas_host *host, const char *path, struct tileset *out);
int tiles_find(const struct tileset *t, const char *id);
extern const char *const cls_names[N_CLS];
extern const char *const role_names[N_CLS];

/* ---------------------------------------------------------- board.c */

/* Parse a board file against the tile set (start spaces name start tiles). */
int board_load(const struct cas_host *host, const char *path, const struct tileset *tiles,
               struct board *out);
extern const char *const effect_names[N_EFFECTS];
/* Neighbouring cell of `cell` across `side`, or -1 off the grid. */
static inline int board_neighbour(const struct board *b, int cell, int side)
{
    return b->next[cell][side];
}

/* ---------------------------------------------------------- features.c */

static inline uint16_t root_of(const cas_state *s, unsigned node) { return s->nodes[node].root; }
/* True when kind/rot fits `cell`: an empty interior cell touching a placed
 * tile along an edge, every path side facing a path side or the wall, every
 * other side facing a non-path side, the wall or an empty space. */
bool placement_fits(const cas_state *s, int cell, int kind, int rot);
/* What a tile on `cell` must have, as bits per side: it fits when its
 * path sides & *care == *need.  False when the cell takes no tile (not an
 * empty interior cell, or touching nothing). */
bool cell_requirement(const cas_state *s, int cell, uint8_t *need, uint8_t *care);
/* Put kind/rot on `cell`, joining features across edges and counting open
 * sides.  The roots of features this completes are appended to done[]
 * (*ndone, at most MAX_PENDING).  Returns the placement index. */
int place_tile(cas_state *s, int cell, int kind, int rot, uint16_t *done, int *ndone);
/* A feature is complete: a path, house or tower with no open side. */
bool feature_complete(const cas_state *s, unsigned root);
/* Distinct placed things (tiles, start spaces) in a feature. */
int feature_tiles(const cas_state *s, unsigned root);
/* The member with the lowest cell, then local index: the name of a feature. */
uint16_t feature_canonical(const cas_state *s, unsigned root);
/* Board-orientation slot text of node's local feature, "N+S", "Nw+E". */
int slots_text(const cas_state *s, unsigned node, char *buf, size_t cap);
/* Cell name "d4" into buf. */
void cell_name(const struct board *b, int cell, char *buf, size_t cap);
/* Size of the largest orthogonally connected group of empty interior cells. */
int largest_empty_group(const cas_state *s);

/* ---------------------------------------------------------- scoring.c */

/* Who has more followers on root: 0, 1, or -1 for nobody (none or a tie). */
int majority(const cas_state *s, unsigned root);
/* Points a feature is worth in normal scoring (no wall tile). */
int feature_points(const cas_state *s, unsigned root);
/* Wall tiles of `effect` player p may use now (not taken this turn). */
int usable(const cas_state *s, int p, int effect);
/* Hand in one usable wall tile of `effect` (the lowest number). */
void use_wall_tile(cas_state *s, int p, int effect);
/* True when the turn player may double this completed feature now. */
bool can_double(const cas_state *s, unsigned root);
/* Score one completed feature during play (doubled when asked), move the
 * keep, take a wall tile on an exact landing, return the followers. */
void score_completed(cas_state *s, unsigned root, bool doubled, const struct cas_event_sink *ev);
/* Add points to p's score; on an exact landing on a tower holding a wall
 * tile, take it (reveal_player set).  `landing` false in final scoring. */
void add_points(cas_state *s, int p, int points, bool landing);
/* Final scoring in the rulebook's order; the state becomes PH_OVER. */
void final_scoring(cas_state *s, const struct cas_event_sink *ev);

/* ---------------------------------------------------------- turn.c */

void state_reset(cas_state *s, const cas_game *game);
int turn_actor(const cas_state *s);
/* Legal actions of the current actor (unsorted). */
void legal_list(const cas_state *s, struct action_list *out);
/* The scoring candidates now (roots), in pending order; returns how many. */
int score_candidates(const cas_state *s, uint16_t *out);
/* Apply a legal action and run the flow on to the next decision. */
void turn_apply(cas_state *s, cas_action a, const struct cas_event_sink *ev);
/* An INFO / SCORE event, visible to all (ev may be NULL). */
void note(const struct cas_event_sink *ev, int player, const char *fmt, ...) CAS_PRINTF(3, 4);
void note_score(const struct cas_event_sink *ev, int player, int points, const char *fmt, ...)
    CAS_PRINTF(4, 5);

/* ---------------------------------------------------------- notation.c */

int notation_text(const cas_state *s, cas_action a, char *buf, size_t cap);
int notation_parse(const cas_state *s, const char *text, cas_action *out);
/* "house d4 E": class, canonical cell and slots of a feature. */
int feature_text(const cas_state *s, unsigned root, char *buf, size_t cap);

/* ---------------------------------------------------------- render.c */

int render_state(const cas_state *s, int viewer, enum cas_render_format format,
                 const struct cas_writer *out);
/* The castle as one self-contained SVG 1.1 picture (svg.c); nothing is
 * hidden, so it is the same for every viewer. */
int render_svg(const cas_state *s, const struct cas_writer *out);
/* The decision as a picture: choices numbered where they point, and with
 * the click-to-play marks when `attributes` (CAS_RENDER_SVG_ACTIONS;
 * CAS_EINVAL when nothing is marked). */
int render_svg_choices(const cas_state *s, int attributes, const cas_action *actions, size_t n,
                       const struct cas_writer *out);
const char *player_name(int p);

/* ---------------------------------------------------------- serialize.c */

int state_serialize(const cas_state *s, uint8_t *buf, size_t cap, size_t *len);
int state_deserialize(const cas_game *game, const uint8_t *buf, size_t len, cas_state *out);
uint64_t state_hash(const cas_state *s);

#define CASTLE_ENCODING 1u

#endif
