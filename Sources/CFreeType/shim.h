// FreeType 2 (libfreetype-dev): glyph outlines to anti-aliased coverage, for the text in the
// bubble picture. Its load flags are macros Swift cannot import, so they are named here.
#include <ft2build.h>
#include FT_FREETYPE_H

static const FT_Int32 plumb_ft_load_render = FT_LOAD_RENDER;
