#if canImport(Glibc)
import Glibc
#endif

/// What to tell a person whom the state directory refuses: the real fix for the real user. A
/// `chown` only when the directory is not the agent's; to another user, how to act as the agent's
/// user or join its group; to its owner, the mode. Pure: the facts come in, a sentence goes out.
package struct StatePermissionAdvice: Sendable, Equatable {
    /// Who the directory belongs to, as the system says it (nil when it cannot be read).
    package var owner: String?
    /// Its permission bits.
    package var mode: mode_t?
    /// Who runs this process, and the groups they are in.
    package var user: String
    package var groups: [String]

    package init(owner: String?, mode: mode_t?, user: String, groups: [String]) {
        self.owner = owner
        self.mode = mode
        self.user = user
        self.groups = groups
    }

    /// The user and group that own the state on an installed system (the unit's `User=` and
    /// `StateDirectory=`).
    package static let agentUser = "plumb"

    /// The sentence for `directory`: `writing` for a save or a removal, otherwise a read.
    package func text(directory: String, writing: Bool) -> String {
        let agent = Self.agentUser
        guard let owner else {
            return "Check \(directory): it should belong to the \(agent) user (mkdir -m 750 \(directory); chown"
                + " \(agent):\(agent) \(directory); systemd's StateDirectory=plumb does this)."
        }
        if owner == user {
            return "\(directory) is yours, \(user), but its mode (\(mode.map { String($0 & 0o777, radix: 8) } ?? "?"))"
                + " does not let you \(writing ? "write" : "read") it: chmod 750 \(directory)."
        }
        guard owner == agent else {
            return "\(directory) belongs to \(owner), not to the \(agent) user that runs the agent: chown -R"
                + " \(agent):\(agent) \(directory); chmod 750 \(directory) (systemd's StateDirectory=plumb does this)."
        }
        if writing {
            return "\(directory) belongs to the \(agent) user and you are \(user): only the agent's user writes the"
                + " state. Run the command as that user (sudo -u \(agent) plumb …), with the agent stopped if it is"
                + " running (sudo systemctl stop plumb)."
        }
        guard groups.contains(agent) else {
            return "\(directory) belongs to the \(agent) user and you, \(user), are not in its group: join it (sudo"
                + " usermod -aG \(agent) \(user)), then log in again."
        }
        return "\(directory) belongs to the \(agent) user and you are in its group, but its mode"
            + " (\(mode.map { String($0 & 0o777, radix: 8) } ?? "?")) keeps the group out: chmod 750 \(directory)."
    }

    /// The facts for `directory` and this process.
    package static func current(for directory: String) -> StatePermissionAdvice {
        var status = stat()
        let known = stat(directory, &status) == 0
        let owner = known ? userName(status.st_uid) : nil
        let user = userName(geteuid()) ?? "uid \(geteuid())"
        var ids = [gid_t](repeating: 0, count: 256)
        let count = getgroups(Int32(ids.count), &ids)
        let groups = (ids.prefix(max(0, Int(count))) + [getegid()]).compactMap(groupName)
        return StatePermissionAdvice(owner: owner, mode: known ? status.st_mode : nil, user: user, groups: groups)
    }

    private static func userName(_ uid: uid_t) -> String? {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    private static func groupName(_ gid: gid_t) -> String? {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return nil }
        return String(cString: name)
    }
}
