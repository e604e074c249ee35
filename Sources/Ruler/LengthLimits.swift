import Geometry

extension Length {
    /// Whether this is a length a ruler, span or footprint may have: finite, greater than 0 and
    /// at most ``RulerLayout/maximumLength`` (1 km, compared in millimetres).
    ///
    /// - Parameter name: what the length is, for the message (`"the ruler's length"`, `"span"`).
    /// - Returns: the length, unchanged.
    /// - Throws: ``RulerError`` of kind ``RulerError/Kind/invalid`` saying what to give instead.
    public func checkedPositive(naming name: String) throws(RulerError) -> Length {
        let maximum = RulerLayout.maximumLength
        guard value.isFinite, value > 0, millimetres <= maximum.millimetres else {
            let got = value.isFinite ? "\(self)" : "a number that is not finite"
            throw RulerError(.invalid, "\(name) must be greater than 0 and at most \(maximum.value.plainText) m (1 km);"
                + " got \(got). Give a length such as \"30cm\" or \"1 3/16in\".")
        }
        return self
    }
}
