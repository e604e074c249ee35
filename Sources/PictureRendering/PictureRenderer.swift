import Drawing

/// A ``Scene`` as PNG bytes: shapes by the pure rasterizer, text by FreeType, the file by libpng.
public struct PictureRenderer: Sendable {
    /// Pixels per user unit.
    public let scale: Double
    /// What sets the text.
    public let text: FreeTypeText

    public init(scale: Double, text: FreeTypeText = FreeTypeText()) {
        self.scale = scale
        self.text = text
    }

    /// The palette PNG of `scene`, at most 256 colours (``Canvas/indexed(maximumColours:)``):
    /// a third of the bytes of RGBA for a picture whose every pixel is within a few levels of it.
    /// Without a usable font the text is left out; ``FreeTypeText/problem()`` says why.
    public func png(of scene: Scene) throws(PNG.Failure) -> [UInt8] {
        try PNG.encode(scene.rasterized(scale: scale, text: text).indexed())
    }
}
