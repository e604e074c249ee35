// libpng 1.6 (libpng-dev), through its simplified API (png_image_*): it reports errors in the
// png_image rather than by longjmp, which Swift cannot survive.
#include <png.h>

static const png_uint_32 plumb_png_format_rgba = PNG_FORMAT_RGBA;
static const png_uint_32 plumb_png_image_version = PNG_IMAGE_VERSION;
static const png_uint_32 plumb_png_format_rgba_colormap = PNG_FORMAT_RGBA_COLORMAP;
