// Small text helpers for the messages. Plain Swift rather than Foundation, so nothing depends on
// a locale.

extension Double {
    /// The number as a person writes it: `30` rather than `30.0`, otherwise Swift's shortest
    /// form that reads back.
    var plainText: String {
        if self == rounded(), abs(self) < 1e15 { return String(Int(self)) }
        return "\(self)"
    }
}

extension Int {
    /// The number with a comma between thousands (`300,001`), so a tick count reads at a glance.
    var groupedText: String {
        let digits = String(self.magnitude)
        var grouped = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return self < 0 ? "-" + grouped : grouped
    }
}
