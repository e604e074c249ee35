import CPNG
import Drawing

/// PNG encoding and decoding through libpng's simplified API.
public enum PNG {
    /// A PNG libpng could not write or read, with libpng's own words.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// A decoded picture: straight-alpha RGBA, row by row from the top.
    public struct Image: Sendable, Equatable {
        public let width: Int
        public let height: Int
        public let rgba: [UInt8]

        /// The pixel at (`x`, `y`).
        public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
            let index = 4 * (y * width + x)
            return (rgba[index], rgba[index + 1], rgba[index + 2], rgba[index + 3])
        }
    }

    /// `canvas` as an 8-bit RGBA PNG, every pixel exact.
    public static func encode(_ canvas: Canvas) throws(Failure) -> [UInt8] {
        try write(width: canvas.width, height: canvas.height, format: plumb_png_format_rgba,
                  pixels: canvas.straightRGBA, stride: 4 * canvas.width, palette: nil)
    }

    /// `picture` as a palette PNG (colour type 3, with its alpha in tRNS); libpng picks 1, 2, 4
    /// or 8 bits a pixel for the palette's size.
    public static func encode(_ picture: IndexedPicture) throws(Failure) -> [UInt8] {
        try write(width: picture.width, height: picture.height, format: plumb_png_format_rgba_colormap,
                  pixels: picture.indices, stride: picture.width, palette: picture.palette)
    }

    /// `stride` is in samples: bytes for these 8-bit formats, one index a pixel for a palette.
    private static func write(width: Int, height: Int, format: png_uint_32, pixels: [UInt8], stride: Int,
                              palette: [UInt8]?) throws(Failure) -> [UInt8] {
        guard width > 0, height > 0 else { throw Failure(description: "an empty picture has no PNG") }
        var image = png_image()
        image.version = plumb_png_image_version
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = format
        image.colormap_entries = png_uint_32((palette?.count ?? 0) / 4)
        let stride = png_int_32(stride)
        let palette = palette ?? []
        // Asked with no buffer, libpng says how large the file will be; then it writes it.
        var size: png_alloc_size_t = 0
        let sized = pixels.withUnsafeBytes { pixels in
            palette.withUnsafeBytes { png_image_write_to_memory(&image, nil, &size, 0, pixels.baseAddress, stride, $0.baseAddress) }
        }
        guard sized != 0, size > 0 else { throw failure(&image, doing: "size") }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let written = bytes.withUnsafeMutableBytes { out in
            pixels.withUnsafeBytes { pixels in
                palette.withUnsafeBytes { png_image_write_to_memory(&image, out.baseAddress, &size, 0, pixels.baseAddress, stride, $0.baseAddress) }
            }
        }
        guard written != 0 else { throw failure(&image, doing: "write") }
        return Array(bytes.prefix(Int(size)))
    }

    /// The picture in `bytes`, converted to 8-bit RGBA whatever its own format.
    public static func decode(_ bytes: [UInt8]) throws(Failure) -> Image {
        var image = png_image()
        image.version = plumb_png_image_version
        let begun = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw failure(&image, doing: "read") }
        image.format = plumb_png_format_rgba
        let (width, height) = (Int(image.width), Int(image.height))
        // A header may claim any size; refuse what no picture of ours would be before allocating it.
        guard width > 0, height > 0, width <= 8192, height <= 8192 else {
            png_image_free(&image)
            throw Failure(description: "a PNG of \(width) × \(height) pixels is larger than any picture read here")
        }
        var rgba = [UInt8](repeating: 0, count: 4 * width * height)
        let finished = rgba.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, png_int_32(4 * width), nil) }
        guard finished != 0 else { throw failure(&image, doing: "read") }
        return Image(width: width, height: height, rgba: rgba)
    }

    private static func failure(_ image: inout png_image, doing what: String) -> Failure {
        let message = withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        png_image_free(&image)
        return Failure(description: "libpng could not \(what) the PNG: \(message.isEmpty ? "no reason given" : message)")
    }
}
