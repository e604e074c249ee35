/// A picture as a palette of at most 256 colours and one palette index a pixel: what a palette
/// PNG stores, a quarter of the bytes of RGBA before compression and about a third after.
///
/// Plumb's pictures are a few flat colours and the anti-aliased edges between them, a few hundred
/// distinct colours in all, so 256 keeps nearly every one exactly and merges only the rarest
/// edge shades with their neighbours.
public struct IndexedPicture: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Straight-alpha red, green, blue, alpha, four bytes an entry, at most 256 entries.
    public let palette: [UInt8]
    /// One palette index a pixel, row by row from the top.
    public let indices: [UInt8]

    /// How many colours the palette holds.
    public var colourCount: Int { palette.count / 4 }

    /// The straight-alpha colour at (`x`, `y`).
    public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        let entry = 4 * Int(indices[y * width + x])
        return (palette[entry], palette[entry + 1], palette[entry + 2], palette[entry + 3])
    }
}

extension Canvas {
    /// The canvas reduced to at most `maximumColours` (2…256) colours.
    ///
    /// With no more distinct colours than that, every pixel keeps its own. Otherwise a median cut
    /// over the distinct colours, in premultiplied space (so that every fully transparent pixel is
    /// one colour, which keeps an entry of its own): the group spanning the widest range in any
    /// channel is split at its pixel-weighted median in that channel, until there are
    /// `maximumColours` groups, and each group is drawn in its pixel-weighted mean. Splitting the widest group first spends the palette on the edge
    /// shades, which are rare but what anti-aliasing is made of.
    public func indexed(maximumColours: Int = 256) -> IndexedPicture {
        let limit = min(max(maximumColours, 2), 256)
        var counts: [UInt32: Int] = [:]
        for index in stride(from: 0, to: pixels.count, by: 4) {
            counts[Self.key(pixels, index), default: 0] += 1
        }
        // Fully transparent is a group of its own, whatever else is merged: the background must
        // not take on the tint of the faint edge shades beside it.
        let transparent = counts.removeValue(forKey: 0).map { [[PaletteColour(key: 0, count: $0)]] } ?? []
        // Sorted so the palette, and so the file, depends on the picture alone.
        let opaque = counts.map { PaletteColour(key: $0.key, count: $0.value) }.sorted { $0.key < $1.key }
        var groups = transparent + (opaque.isEmpty ? [] : [opaque])
        while groups.count < limit {
            guard let (widest, channel) = Self.widestGroup(groups) else { break }
            let (low, high) = Self.split(groups[widest], along: channel)
            groups[widest] = low
            groups.append(high)
        }
        var palette: [UInt8] = []
        palette.reserveCapacity(4 * groups.count)
        var entryOf: [UInt32: UInt8] = [:]
        entryOf.reserveCapacity(counts.count)
        for (entry, group) in groups.enumerated() {
            palette += Self.straight(Self.mean(group))
            for colour in group { entryOf[colour.key] = UInt8(entry) }
        }
        var indices = [UInt8](repeating: 0, count: width * height)
        for pixel in 0..<indices.count {
            indices[pixel] = entryOf[Self.key(pixels, 4 * pixel)] ?? 0
        }
        return IndexedPicture(width: width, height: height, palette: palette, indices: indices)
    }

    private struct PaletteColour {
        let key: UInt32
        let count: Int

        func channel(_ channel: Int) -> Int { Int((key >> UInt32(24 - 8 * channel)) & 0xFF) }
    }

    private static func key(_ pixels: [UInt8], _ index: Int) -> UInt32 {
        UInt32(pixels[index]) << 24 | UInt32(pixels[index + 1]) << 16 | UInt32(pixels[index + 2]) << 8 | UInt32(pixels[index + 3])
    }

    /// The group of more than one colour with the widest range in one channel, and that channel.
    private static func widestGroup(_ groups: [[PaletteColour]]) -> (Int, Int)? {
        var best: (group: Int, channel: Int, range: Int)?
        for (index, group) in groups.enumerated() where group.count > 1 {
            for channel in 0..<4 {
                var low = 255, high = 0
                for colour in group {
                    low = min(low, colour.channel(channel))
                    high = max(high, colour.channel(channel))
                }
                if high - low > (best?.range ?? 0) { best = (index, channel, high - low) }
            }
        }
        return best.map { ($0.group, $0.channel) }
    }

    /// `group` in two at its pixel-weighted median along `channel`, neither half empty.
    private static func split(_ group: [PaletteColour], along channel: Int) -> ([PaletteColour], [PaletteColour]) {
        let sorted = group.sorted { ($0.channel(channel), $0.key) < ($1.channel(channel), $1.key) }
        let half = sorted.reduce(0) { $0 + $1.count } / 2
        var seen = 0
        var cut = 1
        for (index, colour) in sorted.enumerated().dropLast() {
            seen += colour.count
            cut = index + 1
            if seen >= half { break }
        }
        return (Array(sorted[..<cut]), Array(sorted[cut...]))
    }

    /// The pixel-weighted mean of `group`, premultiplied.
    private static func mean(_ group: [PaletteColour]) -> [Int] {
        let total = group.reduce(0) { $0 + $1.count }
        return (0..<4).map { channel in
            (group.reduce(0) { $0 + $1.channel(channel) * $1.count } + total / 2) / total
        }
    }

    private static func straight(_ premultiplied: [Int]) -> [UInt8] {
        let alpha = premultiplied[3]
        return premultiplied.prefix(3).map { straight($0, alpha: alpha) } + [UInt8(min(max(alpha, 0), 255))]
    }
}
