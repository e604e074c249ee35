import CSystemd

/// sd_notify(3) to systemd: readiness, stopping, and the watchdog. Outside systemd
/// (`NOTIFY_SOCKET` unset) every call is a cheap no-op.
public struct SystemdNotifier: Sendable {
    public init() {}

    /// The agent is up: sampling and trying the broker (it is useful offline too).
    public func ready() { send("READY=1") }
    /// A graceful stop began.
    public func stopping() { send("STOPPING=1") }
    /// Reloading the config file.
    public func reloading() { send("RELOADING=1") }
    /// Liveness for `WatchdogSec=`.
    public func watchdog() { send("WATCHDOG=1") }
    /// A one-line status for `systemctl status`.
    public func status(_ text: String) { send("STATUS=" + text) }

    private func send(_ state: String) {
        _ = state.withCString { sd_notify(0, $0) }
    }
}
