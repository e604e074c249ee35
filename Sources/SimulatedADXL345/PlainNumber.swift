extension Double {
    /// The number as people write it in a message or a spec: `50`, `4.5`, `0.5`.
    var plainText: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
