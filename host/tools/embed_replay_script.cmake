# embed_replay_script.cmake — the replay page's script as a C header: the
# table's picture module (host/server/www/picture.js, its `export`s made
# plain functions) and the replay viewer (host/tools/replay.js) in one
# function scope, as bytes, so the page sanitizes and patches pictures with
# the very code the table runs.
#   cmake -DPICTURE=picture.js -DVIEWER=replay.js -DOUT=replay_script.h -P embed_replay_script.cmake
file(READ ${PICTURE} picture)
file(READ ${VIEWER} viewer)
if(picture MATCHES "(^|\n)import ")
  message(FATAL_ERROR "${PICTURE} imports another module; the replay page embeds it alone")
endif()
string(REGEX REPLACE "(^|\n)export " "\\1" picture "${picture}")
if("${picture}${viewer}" MATCHES "</[sS][cC][rR][iI][pP][tT]|<!--")
  message(FATAL_ERROR "the replay script would end or confuse the page's inline <script>")
endif()
file(WRITE ${OUT}.js "(function(){\n'use strict';\n${picture}\n${viewer}})();\n")
file(READ ${OUT}.js hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT}.tmp "/* generated from picture.js and replay.js by embed_replay_script.cmake */\n"
     "static const char replay_script[] = {\n${bytes}0x00};\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
