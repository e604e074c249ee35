import BrokerHarness
import Configuration
import Foundation
import Geometry
import Level
import Persistence
import Settings
import Testing

@Suite("StateStore: settings and zero survive restarts; damage is set aside, never fatal")
struct StateStoreTests {
    static let custom: LiveSettings = {
        let json = """
            {"angle_unit":"mm_per_m","length_unit":"in","level_tolerance":"0.7 mm/m","level_hysteresis":"0.013%",
             "alarm_threshold":"1.1 in/ft","level_dwell_s":1.25,"mount":"X,-z,Y","sample_rate_hz":12.5,
             "average_window_s":0.3,"publish_deadband_deg":0.0123456789,"min_interval_s":0.1,"heartbeat_s":17,
             "name":"Persisted ✓"}
            """
        return try! LiveSettings().applying(json: Array(json.utf8))
    }()

    @Test("Saved settings load back exactly equal, slope-unit angles included")
    func settingsRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        try store.save(settings: Self.custom)
        let loaded = store.load()
        #expect(loaded.settings == Self.custom)
        #expect(loaded.settings?.mount.name == "x,-z,y")
        #expect(loaded.warnings.isEmpty)
        #expect(loaded.zero == nil)
    }

    @Test("A saved zero loads back; saving nil removes it")
    func zeroRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        let zero = try #require(ZeroReference(referenceGravity: Vector3(x: 0.01, y: -0.02, z: 0.998)))
        try store.save(zero: zero)
        #expect(store.load().zero == zero)
        try store.save(zero: nil)
        #expect(store.load().zero == nil)
        #expect(try directory.contents().isEmpty)
        try store.save(zero: nil)  // removing what is not there is fine
        try StateStore(directory: directory.file("never-created")).save(zero: nil)
    }

    @Test("Saving replaces the file and leaves no temporary file behind")
    func atomicReplace() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        try store.save(settings: LiveSettings())
        try store.save(settings: Self.custom)
        #expect(try directory.contents() == ["settings.json"])
        #expect(store.load().settings == Self.custom)
        let text = try String(contentsOfFile: store.settingsPath, encoding: .utf8)
        #expect(text.contains("\"format\" : 1"))
        #expect(text.contains("\"radians\""), "angles are stored in radians, exactly")
    }

    @Test("An empty or missing state is no settings, no zero and no warning")
    func emptyState() throws {
        let directory = try TemporaryDirectory()
        #expect(StateStore(directory: directory.path).load() == StateLoadResult())
    }

    @Test("A missing state directory is created with mode 0750")
    func createsDirectory() throws {
        let directory = try TemporaryDirectory()
        let state = directory.file("nested/state")
        let loaded = StateStore(directory: state).load()
        #expect(loaded.warnings.isEmpty)
        var info = stat()
        #expect(stat(state, &info) == 0)
        // 0750 asked for; the umask can only take bits away.
        #expect(info.st_mode & 0o700 == 0o700)
        #expect(info.st_mode & 0o027 == 0, "no write for the group, nothing for others")
        try StateStore(directory: directory.file("other")).save(settings: LiveSettings())
        #expect(FileManager.default.fileExists(atPath: directory.file("other/settings.json")))
    }

    @Test("Corrupt settings are set aside with a warning saying where; the zero still loads", arguments: [
        ("{not json", "not JSON (line 1, column 4): string or '}' expected near 'not'"),
        ("", "not JSON (line 1, column 0): there is nothing but whitespace"),
        ("{\"format\": 1, \"settings\": {},}", "not JSON (line 1, column 30): a comma before a closing bracket"),
        (#"{"format": 1}"#, "\"settings\" is missing"),
        (#"{"format": 2, "settings": {}}"#, "\"angle_unit\" is missing"),
    ])
    func corruptSettings(contents: String, problem: String) throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        let zero = try #require(ZeroReference(referenceGravity: Vector3(x: 0, y: 0.1, z: 1)))
        try store.save(zero: zero)
        try directory.write(contents, to: "settings.json")
        let loaded = store.load()
        #expect(loaded.settings == nil)
        #expect(loaded.zero == zero)
        let warning = try #require(loaded.warnings.first)
        #expect(loaded.warnings.count == 1)
        #expect(warning.contains(store.settingsPath + " is corrupt"))
        #expect(warning.contains(problem), "\(warning)")
        #expect(warning.contains("config file's settings"))
        let files = try directory.contents()
        let aside = try #require(files.first { $0.hasPrefix("settings.json.corrupt-") })
        #expect(warning.contains(directory.file(aside)))
        #expect(!files.contains("settings.json"))
        #expect(try String(contentsOfFile: directory.file(aside), encoding: .utf8) == contents, "the bad copy is kept")
    }

    @Test("Settings with an invalid value, or from another format, are set aside too")
    func invalidPersistedValues() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        try store.save(settings: Self.custom)
        let valid = try String(contentsOfFile: store.settingsPath, encoding: .utf8)
        for (broken, problem) in [
            (valid.replacingOccurrences(of: "\"mm_per_m\"", with: "\"furlongs\""), "invalid setting: angle_unit"),
            (valid.replacingOccurrences(of: "\"heartbeat_s\" : 17", with: "\"heartbeat_s\" : 0"), "heartbeat_s"),
            (valid.replacingOccurrences(of: "\"format\" : 1", with: "\"format\" : 9"), "format 9"),
            (valid.replacingOccurrences(of: "\"sample_rate_hz\" : 12.5", with: "\"sample_rate_hz\" : \"fast\""),
             "sample_rate_hz has the wrong type"),
        ] {
            #expect(broken != valid)
            try directory.write(broken, to: "settings.json")
            let loaded = store.load()
            #expect(loaded.settings == nil)
            #expect(loaded.warnings.first?.contains(problem) == true, "\(loaded.warnings)")
        }
        #expect(try directory.contents().filter { $0.hasPrefix("settings.json.corrupt-") }.count == 4,
                "each bad copy gets its own name")
    }

    @Test("A zero reference of zero length is corrupt and set aside")
    func corruptZero() throws {
        let directory = try TemporaryDirectory()
        try directory.write(#"{"format":1,"zero":{"referenceGravity":{"x":0,"y":0,"z":0}}}"#, to: "zero.json")
        let loaded = StateStore(directory: directory.path).load()
        #expect(loaded.zero == nil)
        #expect(loaded.warnings.first?.contains("zero.json is corrupt") == true)
        #expect(loaded.warnings.first?.contains("send the zero command") == true)
    }

    @Test("A state directory that cannot be created is a warning on load and a clear error on save")
    func unusableDirectory() throws {
        let directory = try TemporaryDirectory()
        try directory.write("a file, not a directory", to: "blocker")
        let store = StateStore(directory: directory.file("blocker/state"))
        let loaded = store.load()
        #expect(loaded.settings == nil)
        let warning = try #require(loaded.warnings.first)
        #expect(warning.contains("cannot be created"))
        #expect(warning.contains("ENOTDIR"))
        do {
            try store.save(settings: LiveSettings())
            Issue.record("saving under a file succeeded")
        } catch {
            #expect(error.description.contains("could not create the state directory"))
            #expect(error.description.contains(directory.file("blocker/state")))
            #expect(error.errno == ENOTDIR)
        }
    }

    @Test("A save that cannot replace the file fails clearly and leaves no temporary file")
    func failedSave() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("settings.json/inner"),
                                                withIntermediateDirectories: true)
        let store = StateStore(directory: directory.path)
        do {
            try store.save(settings: LiveSettings())
            Issue.record("renaming over a directory succeeded")
        } catch {
            #expect(error.description.hasPrefix("could not save the settings (\(store.settingsPath))"))
            #expect(error.path == store.settingsPath)
        }
        #expect(try directory.contents() == ["settings.json"])
    }

    @Test("An unwritable directory names the fix", .enabled(if: geteuid() != 0, "root writes anywhere"))
    func unwritableDirectory() throws {
        let directory = try TemporaryDirectory()
        chmod(directory.path, 0o500)
        defer { chmod(directory.path, 0o700) }
        do {
            try StateStore(directory: directory.path).save(settings: LiveSettings())
            Issue.record("saving into a read-only directory succeeded")
        } catch {
            #expect(error.description.contains("EACCES"))
            #expect(error.description.contains("is yours"), "the owner is told the mode, not a chown")
            #expect(error.description.contains("chmod 750"))
            #expect(!error.description.contains("chown"))
        }
    }

    @Test("checkWritable passes where a save would, creating the directory, and leaves nothing behind")
    func checkWritable() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path + "/state")
        try store.checkWritable(for: "the calibration")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/state").isEmpty)
    }

    @Test("checkWritable refuses an unwritable directory before any work", .enabled(if: geteuid() != 0, "root writes anywhere"))
    func checkWritableRefuses() throws {
        let directory = try TemporaryDirectory()
        chmod(directory.path, 0o500)
        defer { chmod(directory.path, 0o700) }
        #expect(throws: StateStoreError.self) { try StateStore(directory: directory.path).checkWritable(for: "the calibration") }
    }

    @Test("Permission advice names the real fix for the real user, never a chown of the agent's own directory")
    func permissionAdvice() {
        let directory = "/var/lib/plumb"
        func advice(owner: String?, user: String, groups: [String] = [], mode: mode_t = 0o40750) -> StatePermissionAdvice {
            StatePermissionAdvice(owner: owner, mode: mode, user: user, groups: groups)
        }
        // A person in group i2c, not plumb, runs plumb calibrate or read beside the service.
        let writing = advice(owner: "plumb", user: "pi", groups: ["pi", "i2c"]).text(directory: directory, writing: true)
        #expect(writing.contains("sudo -u plumb plumb"), "\(writing)")
        #expect(!writing.contains("chown"))
        let reading = advice(owner: "plumb", user: "pi", groups: ["pi", "i2c"]).text(directory: directory, writing: false)
        #expect(reading.contains("sudo usermod -aG plumb pi") && reading.contains("log in again"), "\(reading)")
        #expect(!reading.contains("chown"))
        // In the group, but the mode keeps the group out.
        let closed = advice(owner: "plumb", user: "pi", groups: ["plumb"], mode: 0o40700).text(directory: directory, writing: false)
        #expect(closed.contains("chmod 750") && closed.contains("700"), "\(closed)")
        // The directory is someone else's: then the chown is the fix.
        let foreign = advice(owner: "root", user: "plumb").text(directory: directory, writing: true)
        #expect(foreign.contains("belongs to root") && foreign.contains("chown -R plumb:plumb /var/lib/plumb"), "\(foreign)")
        // Its owner is told the mode.
        let own = advice(owner: "pi", user: "pi", mode: 0o40500).text(directory: directory, writing: true)
        #expect(own.contains("is yours, pi") && own.contains("(500)") && !own.contains("chown"), "\(own)")
        // Unknown owner (it cannot be inspected): how to make it right.
        #expect(advice(owner: nil, user: "pi").text(directory: directory, writing: true).contains("mkdir -m 750"))
    }
}
