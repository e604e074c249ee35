#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Geometry
import Level
import Settings
import StrictJSON

/// The live settings and the zero reference, kept in `state_dir` across restarts.
///
/// Two files, `settings.json` and `zero.json`, each replaced atomically (see ``save(settings:)``),
/// so a power cut leaves the old file or the new one, never half of one. A damaged file is never
/// fatal: ``load()`` sets it aside and says so.
///
/// Not synchronised: the agent saves from one actor. Plain POSIX calls; each call opens and
/// closes what it uses.
public struct StateStore: Sendable {
    /// The state directory, `/var/lib/plumb` by default.
    public let directory: String

    public static let settingsFileName = "settings.json"
    public static let zeroFileName = "zero.json"
    /// The format written in the files' `format` field; other formats are set aside.
    static let format = 1
    /// Mode of a directory the store creates: the plumb user and its group, nobody else.
    static let directoryMode: mode_t = 0o750
    static let fileMode: mode_t = 0o640

    public init(directory: String) {
        self.directory = directory
    }

    public var settingsPath: String { directory + "/" + Self.settingsFileName }
    public var zeroPath: String { directory + "/" + Self.zeroFileName }

    // MARK: Saving

    /// Persists `settings`, replacing `settings.json` atomically: a temporary file in the same
    /// directory, fsync, rename over, fsync of the directory. Creates the directory (mode 0750)
    /// when it is missing.
    ///
    /// Angles are stored in radians, so what is loaded equals what was saved, exactly.
    ///
    /// - Throws: ``StateStoreError`` saying which file, what failed and what to do.
    public func save(settings: LiveSettings) throws(StateStoreError) {
        let document = SettingsFile(format: Self.format, settings: PersistedSettings(settings))
        try write(document, to: settingsPath, what: "the settings")
    }

    /// Persists the zero reference the same way, or removes `zero.json` when `zero` is nil.
    ///
    /// - Throws: ``StateStoreError``.
    public func save(zero: ZeroReference?) throws(StateStoreError) {
        guard let zero else {
            if let problem = FileSystem.remove(zeroPath) {
                throw StateStoreError(path: zeroPath, action: "remove the zero reference", problem: problem, directory: directory)
            }
            return
        }
        try write(ZeroFile(format: Self.format, zero: zero), to: zeroPath, what: "the zero reference")
    }

    /// Checks, before any work, that `what` could be saved here: creates the directory as a save
    /// would, then a temporary file in it, and removes that. For a command that would otherwise
    /// find out only at the end (the six-face tumble).
    ///
    /// - Throws: ``StateStoreError`` naming the real fix for the user who runs this.
    public func checkWritable(for what: String) throws(StateStoreError) {
        if let problem = FileSystem.makeDirectories(directory, mode: Self.directoryMode) {
            throw StateStoreError(path: directory, action: "create the state directory for \(what)", problem: problem,
                                  directory: directory)
        }
        let probe = "\(directory)/.writable-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, Self.fileMode)
        guard descriptor >= 0 else {
            throw StateStoreError(path: directory, action: "save \(what) (checked before starting)",
                                  problem: FileProblem(errno: errno), directory: directory)
        }
        close(descriptor)
        unlink(probe)
    }

    func write(_ document: some Encodable, to path: String, what: String) throws(StateStoreError) {
        if let problem = FileSystem.makeDirectories(directory, mode: Self.directoryMode) {
            throw StateStoreError(path: directory, action: "create the state directory", problem: problem, directory: directory)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        // Only finite numbers and strings: encoding cannot fail; a failure would be a bug.
        guard let data = try? encoder.encode(document) else {
            throw StateStoreError(path: path, action: "encode \(what)", problem: FileProblem(errno: EINVAL), directory: directory)
        }
        if let problem = FileSystem.writeAtomically(Array(data) + [0x0A], to: path, mode: Self.fileMode) {
            throw StateStoreError(path: path, action: "save \(what)", problem: problem, directory: directory)
        }
    }

    // MARK: Loading

    /// What the state directory holds. Never fails: a missing file is simply absent, and a
    /// problem becomes a warning for the log.
    ///
    /// - A missing directory is created (mode 0750); when that fails, a warning says so and how
    ///   to fix it.
    /// - A corrupt file (not strict JSON, an unknown format, an invalid value) is renamed to
    ///   `<name>.corrupt-<UTC timestamp>` beside it, and a warning says what was wrong and where
    ///   the copy went. The agent then starts from the config file's settings or without a
    ///   zero reference.
    /// - A file that cannot be read (permissions) is left alone, with a warning.
    ///
    /// - Parameter defaults: the config file's live settings, for the keys an older
    ///   `settings.json` lacks (those added after it was written): such a key keeps the file's
    ///   value, as it would had MQTT never changed it.
    public func load(defaults: LiveSettings = LiveSettings()) -> StateLoadResult {
        var result = StateLoadResult()
        if !FileSystem.isDirectory(directory) {
            if let problem = FileSystem.makeDirectories(directory, mode: Self.directoryMode) {
                result.warnings.append("the state directory \(directory) does not exist and cannot be created:"
                    + " \(problem.description). Settings changed over MQTT and the zero reference will not survive"
                    + " a restart. Create it (mkdir -m 750 \(directory); chown plumb:plumb \(directory)) or set state_dir.")
            }
            return result
        }
        result.settings = load(Self.settingsFileName, fallback: "started from the config file's settings",
                               warnings: &result.warnings) { bytes throws(StateFileProblem) in
            try Self.decodeSettings(bytes, defaults: defaults)
        }
        result.zero = load(Self.zeroFileName, fallback: "started without a zero reference; send the zero command"
                           + " to take a new one", warnings: &result.warnings) { bytes throws(StateFileProblem) in
            try Self.decodeZero(bytes)
        }
        return result
    }

    /// The settings file as it stands, read only: for a command that shows what the agent uses
    /// (`plumb dashboard`). Nothing is created, moved or set aside; nil settings when there is no
    /// file, and a warning when it cannot be read or is not valid.
    public func peekSettings(defaults: LiveSettings) -> (settings: LiveSettings?, warning: String?) {
        switch FileSystem.read(settingsPath, limit: 1024 * 1024) {
        case .success(let bytes):
            do throws(StateFileProblem) {
                return (try Self.decodeSettings(bytes, defaults: defaults), nil)
            } catch {
                return (nil, "\(settingsPath) is not valid (\(error.reason)); the config file's settings are used instead.")
            }
        case .failure(let failure) where failure.errno == ENOENT:
            return (nil, nil)
        case .failure(let failure):
            return (nil, "\(settingsPath) cannot be read (\(failure.description)); the config file's settings are used instead.")
        }
    }

    /// - Parameter unreadable: What happens instead when the file is there but cannot be read;
    ///   `fallback` when nil. (A damaged file's fallback may say to make it again, which does not
    ///   help one that is only unreadable.)
    func load<Value>(_ name: String, fallback: String, unreadable: String? = nil, warnings: inout [String],
                             decode: ([UInt8]) throws(StateFileProblem) -> Value) -> Value? {
        let path = directory + "/" + name
        let problem: String
        switch FileSystem.read(path, limit: 1024 * 1024) {
        case .success(let bytes):
            do {
                return try decode(bytes)
            } catch {
                problem = error.reason
            }
        case .failure(let failure) where failure.errno == ENOENT:
            return nil
        case .failure(let failure) where failure.tooLargeLimit != nil:
            problem = failure.description
        case .failure(let failure):
            var warning = "\(path) cannot be read: \(failure.description); \(unreadable ?? fallback)."
            if failure.errno == EACCES || failure.errno == EPERM {
                warning += " " + StatePermissionAdvice.current(for: directory).text(directory: directory, writing: false)
            }
            warnings.append(warning)
            return nil
        }
        let aside = corruptPath(for: path)
        if let moveProblem = FileSystem.move(path, to: aside) {
            warnings.append("\(path) is corrupt (\(problem)) and could not be set aside (\(moveProblem.description));"
                + " \(fallback). It will be replaced at the next save.")
        } else {
            warnings.append("\(path) is corrupt (\(problem)); moved it to \(aside) and \(fallback).")
        }
        return nil
    }

    /// `<path>.corrupt-20261130T174237Z`, with `-2`, `-3`… when that name is taken.
    private func corruptPath(for path: String) -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func digits(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let date = digits(parts.tm_year + 1900, 4) + digits(parts.tm_mon + 1, 2) + digits(parts.tm_mday, 2)
        let stamp = date + "T" + digits(parts.tm_hour, 2) + digits(parts.tm_min, 2) + digits(parts.tm_sec, 2) + "Z"
        let base = "\(path).corrupt-\(stamp)"
        var candidate = base
        var counter = 2
        while FileSystem.exists(candidate) {
            candidate = "\(base)-\(counter)"
            counter += 1
        }
        return candidate
    }

    static func decodeSettings(_ bytes: [UInt8], defaults: LiveSettings) throws(StateFileProblem) -> LiveSettings {
        let document: SettingsFile = try decodeJSON(bytes)
        try checkFormat(document.format)
        do {
            return try document.settings.validated(defaults: defaults)
        } catch {
            throw StateFileProblem(reason: "invalid setting: \(error.description)")
        }
    }

    static func decodeZero(_ bytes: [UInt8]) throws(StateFileProblem) -> ZeroReference {
        let document: ZeroFile = try decodeJSON(bytes)
        try checkFormat(document.format)
        return document.zero
    }

    /// The file's document, read only when the file is strict JSON (`StrictJSON`): a file with a
    /// trailing comma, a comment or a duplicate key was not written by plumb, and is set aside
    /// like any other damage, the problem named.
    static func decodeJSON<Document: Decodable>(_ bytes: [UInt8]) throws(StateFileProblem) -> Document {
        do {
            _ = try StrictJSON.parse(bytes, allowingScalars: false)
        } catch {
            throw StateFileProblem(reason: error.description)
        }
        do {
            return try JSONDecoder().decode(Document.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, _) {
            throw StateFileProblem(reason: "\"\(key.stringValue)\" is missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw StateFileProblem(reason: "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type")
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw StateFileProblem(reason: "\(context.codingPath.map(\.stringValue).joined(separator: ".")):"
                + " \(context.debugDescription)")
        } catch {
            throw StateFileProblem(reason: "not valid JSON")
        }
    }

    static func checkFormat(_ format: Int) throws(StateFileProblem) {
        guard format == Self.format else {
            throw StateFileProblem(reason: "format \(format), and this version of plumb reads format \(Self.format)")
        }
    }
}

/// What ``StateStore/load()`` found.
public struct StateLoadResult: Sendable, Equatable {
    /// The persisted live settings, or nil when there were none (or they were set aside).
    public var settings: LiveSettings?
    /// The persisted zero reference, or nil.
    public var zero: ZeroReference?
    /// One sentence per problem, for the log: what happened, where a bad copy went, what the
    /// agent does instead.
    public var warnings: [String] = []

    public init(settings: LiveSettings? = nil, zero: ZeroReference? = nil, warnings: [String] = []) {
        self.settings = settings
        self.zero = zero
        self.warnings = warnings
    }
}

/// A save that failed: which file, what was being done, the errno, and what to do.
public struct StateStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file or directory concerned.
    public let path: String
    /// What was being done: `save the settings`, `create the state directory`.
    public let action: String
    /// The errno.
    public let errno: Int32
    let problem: FileProblem
    let directory: String

    init(path: String, action: String, problem: FileProblem, directory: String) {
        self.path = path
        self.action = action
        self.problem = problem
        self.errno = problem.errno
        self.directory = directory
    }

    public var description: String {
        var text = "could not \(action) (\(path)): \(problem.description)."
        switch problem.errno {
        case EROFS:
            text += " \(directory) is on a read-only file system: set state_dir to a writable directory."
        case EACCES, EPERM:
            text += " " + StatePermissionAdvice.current(for: directory).text(directory: directory, writing: true)
        case ENOSPC, EDQUOT:
            text += " The disk is full; free some space."
        default:
            break
        }
        return text
    }
}

/// Why a state file was set aside.
struct StateFileProblem: Error, Sendable {
    var reason: String
}

// MARK: File formats

struct SettingsFile: Codable {
    var format: Int
    var settings: PersistedSettings
}

struct ZeroFile: Codable {
    var format: Int
    var zero: ZeroReference
}
