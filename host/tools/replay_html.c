/*
 * replay_html.c — a saved game as one self-contained HTML page: the game's
 * own SVG picture of every ply embedded in the page (the host cannot draw
 * any game itself, and a renderer in JavaScript would have to be written
 * again for every game and tile set), the action and visible events of
 * each ply, the scores after it, a small chart of the scores over time,
 * and controls to step through it.  Nothing is fetched: no network, no
 * external script, style or font.
 */
#include "replay_html.h"
#include "picture.h"

#include <stdlib.h>
#include <string.h>

#include "revive.h"

/* A JSON string safe inside <script>: '<', '>' and '&' are escaped too,
 * so no embedded text can close the script element. */
static void json_string(FILE *out, const char *text, size_t len)
{
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c < 0x20 || c == '<' || c == '>' || c == '&')
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void html_text(FILE *out, const char *text)
{
    for (; *text; text++) {
        switch (*text) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*text, out);
        }
    }
}

struct html {
    FILE *out;
    int viewer;
    char *transcript;      /* what the session printed, for the events */
    size_t transcript_len;
    FILE *session_out;     /* a memory stream over transcript */
    size_t read_upto;
    char *err;
    size_t errlen;
};

/* The events the session printed since the last ply: its lines indented
 * by two spaces, up to the end-of-game report (which starts blank). */
static void write_events(struct html *h)
{
    fflush(h->session_out);
    const char *at = h->transcript + h->read_upto, *end = h->transcript + h->transcript_len;
    int first = 1;
    fputc('[', h->out);
    while (at < end) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        size_t len = nl ? (size_t)(nl - at) : (size_t)(end - at);
        if (len == 0)
            break;
        if (len > 2 && at[0] == ' ' && at[1] == ' ') {
            fputs(first ? "" : ",", h->out);
            json_string(h->out, at + 2, len - 2);
            first = 0;
        }
        at += len + (nl != NULL);
    }
    fputc(']', h->out);
    h->read_upto = h->transcript_len;
}

static int write_frame(struct html *h, struct cas__revived *r, const char *who,
                       const char *text)
{
    struct cas__session *s = &r->session;
    struct cas__match *m = s->match;
    char *svg;
    size_t len;
    int rc = cas__picture_render(m, s->state, h->viewer, &svg, &len, h->err, h->errlen);
    if (rc != CAS_OK)
        return rc;
    fprintf(h->out, "%s{\"who\":", s->ply ? ",\n" : "");
    json_string(h->out, who, strlen(who));
    fputs(",\"text\":", h->out);
    json_string(h->out, text, strlen(text));
    fputs(",\"events\":", h->out);
    write_events(h);
    fputs(",\"scores\":[", h->out);
    int64_t scores[64] = {0};
    int n = m->nplayers < 64 ? m->nplayers : 64;
    if (m->vt->returns(s->state, scores, (size_t)n) != CAS_OK)
        memset(scores, 0, sizeof scores);
    for (int p = 0; p < n; p++)
        fprintf(h->out, "%s%lld", p ? "," : "", (long long)scores[p]);
    fputs("],\"svg\":", h->out);
    json_string(h->out, svg, len);
    fputc('}', h->out);
    free(svg);
    return CAS_OK;
}

static int after_action(void *ctx, struct cas__revived *r, size_t i)
{
    struct html *h = ctx;
    const struct cas__saves_action *a = &r->saved->actions[i];
    char who[160];
    int chance = a->actor < 0;
    if (chance)
        snprintf(who, sizeof who, "chance");
    else
        snprintf(who, sizeof who, "%s", r->session.player_names && r->session.player_names[a->actor]
                                            ? r->session.player_names[a->actor]
                                            : cas__match_label(r->session.match, a->actor));
    /* what chance drew is told by the game's events to those who may know */
    const char *text = chance && h->viewer != CAS_VIEWER_OMNISCIENT ? "" : a->text;
    return write_frame(h, r, who, text);
}

static const char page_style[] =
    "<style>\n"
    ":root{--ink:#2a2118;--paper:#f4efe3;--card:#fffdf7;--line:#d8ccb0;--accent:#8a5a1c}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;background:var(--paper);color:var(--ink);font:15px/1.4 'DejaVu Sans',"
    "Verdana,sans-serif}\n"
    "header{padding:10px 18px;border-bottom:1px solid var(--line);background:var(--card)}\n"
    "header h1{margin:0;font-size:19px}header p{margin:2px 0 0;color:#6b5b45}\n"
    "main{display:flex;gap:14px;padding:14px;align-items:flex-start}\n"
    "#board{flex:1 1 auto;min-width:0;background:var(--card);border:1px solid var(--line);"
    "border-radius:8px;padding:6px}\n"
    "#board svg{display:block;width:100%;height:auto;max-height:calc(100vh - 120px)}\n"
    "aside{flex:0 0 330px;display:flex;flex-direction:column;gap:10px}\n"
    ".box{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px}\n"
    "nav{display:flex;gap:6px;align-items:center;flex-wrap:wrap}\n"
    "button{font:inherit;font-size:16px;min-width:44px;padding:6px 8px 2px;border:1px solid #b9a67e;"
    "border-radius:6px;background:#fbf5e6;color:var(--ink);cursor:pointer}\n"
    "button:hover{background:#f1e4c4}button:disabled{opacity:.4;cursor:default}\n"
    "#slider{width:100%;accent-color:var(--accent)}\n"
    "#plylabel{font-weight:bold;margin-left:auto}\n"
    "#action{font-weight:bold;font-size:16px;min-height:1.4em}\n"
    "#events{margin:6px 0 0;padding-left:18px;min-height:1.4em}#events li{margin:2px 0}\n"
    "#scores{width:100%;border-collapse:collapse}#scores td{padding:2px 4px}\n"
    "#scores td.pts{text-align:right;font-weight:bold}\n"
    ".swatch{display:inline-block;width:12px;height:12px;border-radius:3px;margin-right:6px;"
    "vertical-align:-1px;border:1px solid #0004}\n"
    "#chart{width:100%;height:auto;display:block}\n"
    ".hint{color:#7a6a52;font-size:13px}\n"
    "</style>\n";

static const char page_script[] =
    "<script>\n"
    "(function(){\n"
    "'use strict';\n"
    "var plies=JSON.parse(document.getElementById('plies').textContent);\n"
    "var names=JSON.parse(document.getElementById('players').textContent);\n"
    "var known={red:'#d7261e',blue:'#1f5fbf',green:'#2e9a3e',yellow:'#e0b000',"
    "black:'#2b2b2b',pink:'#e46fb0',purple:'#7b3fa0',orange:'#e07a1f'};\n"
    "var spare=['#d7261e','#1f5fbf','#2e9a3e','#e0b000','#7b3fa0','#e07a1f'];\n"
    "function colour(i){var m=/\\(([A-Za-z]+)\\)$/.exec(names[i]);"
    "var k=m&&known[m[1].toLowerCase()];return k||spare[i%spare.length];}\n"
    "var $=function(id){return document.getElementById(id);};\n"
    "var board=$('board'),slider=$('slider'),cur=-1,last=plies.length-1;\n"
    "slider.max=String(last);\n"
    "var NS='http://www.w3.org/2000/svg',W=300,H=120,P=6;\n"
    "var top=1;plies.forEach(function(p){p.scores.forEach(function(s){if(s>top)top=s;});});\n"
    "function xy(i,s){return [P+(W-2*P)*(last?i/last:0),H-P-(H-2*P)*Math.max(s,0)/top];}\n"
    "var chart=$('chart');\n"
    "names.forEach(function(n,p){var pts=plies.map(function(f,i){return xy(i,f.scores[p]||0)"
    ".map(function(v){return v.toFixed(1);}).join(',');});"
    "var l=document.createElementNS(NS,'polyline');l.setAttribute('points',pts.join(' '));"
    "l.setAttribute('fill','none');l.setAttribute('stroke',colour(p));"
    "l.setAttribute('stroke-width','2');chart.appendChild(l);});\n"
    "var axis=document.createElementNS(NS,'text');axis.setAttribute('x',P+2);"
    "axis.setAttribute('y',P+10);axis.setAttribute('font-size','10');axis.setAttribute('fill','#7a6a52');"
    "axis.textContent=String(top)+' points';chart.appendChild(axis);\n"
    "var cursor=document.createElementNS(NS,'line');cursor.setAttribute('y1',0);"
    "cursor.setAttribute('y2',H);cursor.setAttribute('stroke','#2a2118');"
    "cursor.setAttribute('stroke-dasharray','3 3');chart.appendChild(cursor);\n"
    "var rows=$('scores');names.forEach(function(n,p){var tr=rows.insertRow();"
    "var a=tr.insertCell(),b=tr.insertCell();a.innerHTML='';var sw=document.createElement('span');"
    "sw.className='swatch';sw.style.background=colour(p);a.appendChild(sw);"
    "a.appendChild(document.createTextNode(n));b.className='pts';});\n"
    "function show(i){i=Math.max(0,Math.min(last,i|0));if(i===cur)return;cur=i;var f=plies[i];\n"
    "board.innerHTML=f.svg;slider.value=String(i);\n"
    "$('plylabel').textContent=i===0?'start':'ply '+i+' of '+last;\n"
    "$('action').textContent=i===0?'The game begins':(f.who+(f.text?': '+f.text:''));\n"
    "var ev=$('events');ev.textContent='';f.events.forEach(function(t){"
    "var li=document.createElement('li');li.textContent=t;ev.appendChild(li);});\n"
    "f.scores.forEach(function(s,p){rows.rows[p].cells[1].textContent=String(s);});\n"
    "var x=xy(i,0)[0].toFixed(1);cursor.setAttribute('x1',x);cursor.setAttribute('x2',x);\n"
    "$('first').disabled=$('prev').disabled=i===0;$('next').disabled=$('last').disabled=i===last;\n"
    "document.body.setAttribute('data-ply',String(i));\n"
    "if(history.replaceState)history.replaceState(null,'','#ply='+i);}\n"
    "$('first').onclick=function(){show(0);};$('prev').onclick=function(){show(cur-1);};\n"
    "$('next').onclick=function(){show(cur+1);};$('last').onclick=function(){show(last);};\n"
    "slider.oninput=function(){show(+slider.value);};\n"
    "document.addEventListener('keydown',function(e){var k=e.key,to=null;\n"
    "if(k==='ArrowRight'||k==='ArrowDown')to=cur+1;else if(k==='ArrowLeft'||k==='ArrowUp')"
    "to=cur-1;\nelse if(k==='Home')to=0;else if(k==='End')to=last;else if(k==='PageDown')"
    "to=cur+10;\nelse if(k==='PageUp')to=cur-10;if(to!==null){e.preventDefault();show(to);}});\n"
    "var m=/^#ply=(\\d+)$/.exec(location.hash);show(m?+m[1]:0);\n"
    "})();\n"
    "</script>\n";

/* A button's picture: one path, drawn in the text colour. */
#define ICON(d)                                                                  \
    "<svg width=\"16\" height=\"16\" viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"" d \
    "\" fill=\"currentColor\" stroke=\"currentColor\" stroke-width=\"1.5\" "                \
    "stroke-linejoin=\"round\"/></svg>"

static void write_head(FILE *out, struct cas__revived *r, const char *title)
{
    const struct cas__saves_game *g = r->saved;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>", out);
    html_text(out, title);
    fprintf(out, "</title>\n%s</head>\n<body data-ply=\"\">\n<header><h1>", page_style);
    html_text(out, title);
    fputs("</h1><p>", out);
    for (size_t i = 0; i < g->n_players; i++) {
        fputs(i ? ", " : "", out);
        html_text(out, g->players[i].name);
        fprintf(out, " as ");
        html_text(out, cas__match_label(r->session.match, (int)i));
        fputs(" (", out);
        html_text(out, g->players[i].agent);
        fputs(")", out);
    }
    fprintf(out, "; seed %llu; %zu plies</p></header>\n", (unsigned long long)g->seed,
            g->n_actions);
    fputs("<main>\n<div id=\"board\" aria-live=\"polite\"></div>\n<aside>\n"
          "<div class=\"box\"><nav>"
          "<button id=\"first\" title=\"first (Home)\" aria-label=\"first\">" ICON("M3 2v12M14 2 5 8l9 6z") "</button>"
          "<button id=\"prev\" title=\"previous (left arrow)\" aria-label=\"previous\">" ICON("M12 2 3 8l9 6z") "</button>"
          "<button id=\"next\" title=\"next (right arrow)\" aria-label=\"next\">" ICON("M4 2l9 6-9 6z") "</button>"
          "<button id=\"last\" title=\"last (End)\" aria-label=\"last\">" ICON("M13 2v12M2 2l9 6-9 6z") "</button>"
          "<span id=\"plylabel\"></span></nav>\n"
          "<input id=\"slider\" type=\"range\" min=\"0\" max=\"0\" value=\"0\" "
          "aria-label=\"ply\">\n"
          "<div class=\"hint\">Arrow keys step, Home and End jump.</div></div>\n"
          "<div class=\"box\"><div id=\"action\"></div><ul id=\"events\"></ul></div>\n"
          "<div class=\"box\"><table id=\"scores\"></table>\n"
          "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 300 120\" "
          "role=\"img\" aria-label=\"scores over time\"><rect width=\"300\" height=\"120\" "
          "fill=\"#fbf7ec\" stroke=\"#d8ccb0\"/></svg></div>\n"
          "</aside>\n</main>\n", out);
}

static void write_players(FILE *out, struct cas__revived *r)
{
    const struct cas__saves_game *g = r->saved;
    char name[300];
    fputs("<script type=\"application/json\" id=\"players\">[", out);
    for (size_t i = 0; i < g->n_players; i++) {
        snprintf(name, sizeof name, "%s (%s)", g->players[i].name,
                 cas__match_label(r->session.match, (int)i));
        fputs(i ? "," : "", out);
        json_string(out, name, strlen(name));
    }
    fputs("]</script>\n", out);
}

int cas__replay_html_write(struct cas__revived *r, int viewer, const char *title,
                           FILE *out, char *err, size_t errlen)
{
    struct html h = {.out = out, .viewer = viewer, .err = err, .errlen = errlen};
    err[0] = '\0';
    h.session_out = open_memstream(&h.transcript, &h.transcript_len);
    if (!h.session_out) {
        snprintf(err, errlen, "out of memory");
        return CAS_ENOMEM;
    }
    r->session.out = h.session_out;
    r->session.viewer = viewer;
    write_head(out, r, title);
    write_players(out, r);
    fputs("<script type=\"application/json\" id=\"plies\">[", out);
    int rc = write_frame(&h, r, "", "");
    if (rc == CAS_OK) {
        rc = cas__revive_replay(r, r->saved->n_actions, 0, after_action, &h);
        if (rc != CAS_OK && !err[0])
            snprintf(err, errlen, "%s", r->error);
    }
    fputs("]</script>\n", out);
    fputs(page_script, out);
    fputs("</body>\n</html>\n", out);
    r->session.out = NULL;
    fclose(h.session_out);
    free(h.transcript);
    if (rc == CAS_OK && ferror(out)) {
        snprintf(err, errlen, "cannot write the page");
        rc = CAS_EIO;
    }
    return rc;
}
