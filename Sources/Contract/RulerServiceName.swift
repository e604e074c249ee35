/// The ruler services, the last level of `P/request/<service>` and `P/response/<service>`:
/// answered by the ruler service, called by the CLI and by people. The raw values are the wire
/// names docs/reference/ruler-service.md documents.
public enum RulerServiceName: String, Sendable, CaseIterable {
    /// A ruler's graduations, for drawing.
    case ruler
    /// A length in another unit.
    case convert
    /// The rise over a span at the current tilt.
    case rise
    /// The shims that level a rectangle at the current tilt.
    case shim

    /// Every name, for "the services are …": `ruler, convert, rise, shim`.
    public static let list = allCases.map(\.rawValue).joined(separator: ", ")
}
