// swift-tools-version: 6.1
import PackageDescription

// One list of strict settings, applied to every Swift target below (the swift-log way): a setting
// that matters for one module matters for all of them.
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Plumb",
    products: [
        .executable(name: "plumb", targets: ["plumb"]),
        .executable(name: "plumb-bench", targets: ["PlumbBench"]),
        .executable(name: "plumb-docs", targets: ["PlumbDocs"]),
    ],
    targets: [
        // MARK: C headers from the system, never re-declared by hand
        .systemLibrary(name: "CI2CDev", path: "Sources/CI2CDev"),
        .systemLibrary(name: "CMosquitto", path: "Sources/CMosquitto", pkgConfig: "libmosquitto",
                       providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "CYAML", path: "Sources/CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CSystemd", path: "Sources/CSystemd", pkgConfig: "libsystemd",
                       providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CFFTW", path: "Sources/CFFTW", pkgConfig: "fftw3", providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CJansson", path: "Sources/CJansson", pkgConfig: "jansson",
                       providers: [.apt(["libjansson-dev"])]),
        .systemLibrary(name: "CFreeType", path: "Sources/CFreeType", pkgConfig: "freetype2",
                       providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // glibc's mallopt and malloc_trim: the agent's heap under bursts of large messages.
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),

        // MARK: Geometry: vectors, rotations, attitude, mounts, units and their display (pure, a leaf)
        .target(name: "Geometry"),

        // MARK: The level pipeline: blocks, filters, stability, calibration, the level state machine (pure)
        .target(name: "Level", dependencies: ["Geometry", "Thermal"]),

        // MARK: Temperature: drift models and their fits, temperature tracking, the uncertainty budget (pure)
        .target(name: "Thermal", dependencies: ["Geometry"]),

        // MARK: The contract: topics, command, event, health and service names, JSON values (pure)
        // A leaf: every module that speaks or reads the wire agrees through it.
        .target(name: "Contract"),

        // MARK: Strict RFC 8259 JSON for every input from outside (Jansson)
        .target(name: "StrictJSON", dependencies: ["CJansson", "Contract"]),

        // MARK: The vibration vocabulary: machine classes and their ISO 10816 zones, the running
        // threshold, the velocity band (pure). Below both Vibration and Settings, which speak it.
        .target(name: "VibrationVocabulary"),

        // MARK: Vibration: the analysis of raw windows (FFTW), running state and zone tracking
        .target(name: "Vibration", dependencies: ["CFFTW", "Geometry", "VibrationVocabulary"]),

        // MARK: Pictures: shapes and text as a scene, written as SVG or rasterized (pure)
        .target(name: "Drawing", dependencies: ["Geometry"]),
        // A scene as PNG bytes: FreeType for the text, libpng for the file.
        .target(name: "PictureRendering", dependencies: ["CFreeType", "CPNG", "Drawing"]),

        // MARK: The ruler: lengths, graduations, rise and shims (pure)
        .target(name: "Ruler", dependencies: ["Geometry"]),

        // MARK: Plumbing shared by the I/O modules
        .target(name: "PlumbSync"),

        // MARK: Hardware, behind small protocols
        .target(name: "I2C", dependencies: ["CI2CDev", "PlumbSync"]),
        .target(name: "Accelerometers", dependencies: ["I2C", "Geometry", "Level", "Thermal"]),
        .target(name: "SimulatedADXL345", dependencies: ["I2C", "Accelerometers", "Geometry", "Level", "PlumbSync", "Thermal"]),
        .target(name: "SimulatedADXL355", dependencies: [
            "I2C", "Accelerometers", "Geometry", "PlumbSync", "SimulatedADXL345", "Thermal",
        ]),
        .target(name: "SimulatedMPU6050", dependencies: [
            "I2C", "Accelerometers", "Geometry", "PlumbSync", "SimulatedADXL345", "Thermal",
        ]),

        // The simulators by chip kind: which simulator plays which chip (`--sim-chip`), and a part
        // built to a request (the `--sim-*` flags), for the command line.
        .target(name: "SimulatedChips", dependencies: [
            "Accelerometers", "I2C", "Geometry", "SimulatedADXL345", "SimulatedADXL355", "SimulatedMPU6050",
        ]),

        // MARK: The pipeline: samples to readings
        .target(name: "Sampling", dependencies: ["Accelerometers", "Geometry", "Level", "I2C"]),

        // MARK: The live settings, their rules and their JSON (pure; no FFTW)
        // VibrationVocabulary for the words of its settings (machine classes, the running threshold).
        .target(name: "Settings", dependencies: ["Contract", "Geometry", "Level", "StrictJSON", "VibrationVocabulary"]),

        // MARK: Persistence: the state store (settings.json, zero.json), the calibration record
        // (calibration.json), atomic file writes and the advice for a state directory it cannot use
        .target(name: "Persistence", dependencies: ["Geometry", "Level", "Settings", "StrictJSON", "Thermal"]),

        // MARK: Network and the config file
        .target(name: "MQTT", dependencies: ["CMosquitto", "Geometry", "PlumbSync"]),
        // Accelerometers for the chip's addresses and ranges, which `sensor:` is checked against;
        // Persistence for its file reads.
        .target(name: "Configuration", dependencies: [
            "Accelerometers", "CYAML", "Contract", "Persistence", "Geometry", "Settings", "StrictJSON", "I2C",
            "Thermal",
        ]),

        // MARK: The fleet: every device's retained topics read into a listing, problems first (pure)
        .target(name: "Fleet", dependencies: ["Geometry", "StrictJSON"]),

        // MARK: Calibration: the tumble and the reversal, for every caller (no terminal I/O)
        // Persistence for the record a calibration produces (calibration.json's contents).
        .target(name: "Calibrating", dependencies: ["Accelerometers", "Persistence", "Geometry", "Level", "Thermal"]),

        // MARK: Services the agent hosts, pure: requests in, replies and payloads out
        .target(name: "RulerService", dependencies: ["Contract", "Ruler", "Geometry", "Level", "StrictJSON", "Thermal"]),
        .target(name: "HomeAssistant", dependencies: [
            "Contract", "Drawing", "Geometry", "Level", "Settings", "Thermal", "Vibration", "VibrationVocabulary",
        ]),

        // MARK: The agent: services under one supervisor
        // The local control socket: its protocol, the agent's server and the command line's client.
        .target(name: "Control", dependencies: ["Contract", "Geometry", "Level", "PlumbSync", "StrictJSON", "Thermal"]),

        .target(name: "Agent", dependencies: [
            "Accelerometers", "Calibrating", "CMalloc", "Configuration", "Contract", "Control", "CSystemd", "HomeAssistant", "I2C",
            "MQTT", "Persistence", "Geometry", "Level", "PictureRendering",
            "PlumbSync", "RulerService", "Sampling", "Settings", "StrictJSON", "Thermal", "Vibration", "VibrationVocabulary",
        ]),

        // MARK: Command line
        .target(name: "PlumbCLI", dependencies: [
            "Accelerometers", "Agent", "Calibrating", "Configuration", "Contract", "Control", "Drawing", "Fleet", "HomeAssistant", "I2C", "MQTT",
            "Persistence", "Geometry", "Level", "PictureRendering", "Ruler", "RulerService", "Sampling", "Settings", "SimulatedADXL345", "SimulatedChips",
            "StrictJSON", "PlumbSync", "Thermal",
            "Vibration", "VibrationVocabulary",
        ]),
        // Linked for a small resident set on the Pi (issue 11), each measured on the running agent:
        // GNU ld with packed relative relocations (DT_RELR, glibc ≥ 2.36, which dpkg-shlibdeps then
        // requires) instead of gold, which cannot pack them: the loader reads 8 KB of relocations
        // instead of 964 KB (−0.8 MB peak RSS); and no exported symbol table, which the static
        // Swift runtime's link arguments ask for but nothing loads symbols from this executable
        // (−0.5 MB). Position independence (ASLR) and RELRO are unchanged.
        .executableTarget(name: "plumb", dependencies: ["PlumbCLI"], linkerSettings: [
            .unsafeFlags([
                "-use-ld=bfd", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                "-Xlinker", "--no-export-dynamic",
            ], .when(platforms: [.linux])),
        ]),
        // The accuracy benchmark as a library, so a test can check it measures what it says.
        .target(name: "AccuracyBenchmark", dependencies: [
            "Accelerometers", "Calibrating", "I2C", "Persistence", "Geometry", "Level", "Sampling", "Settings",
            "SimulatedADXL345", "SimulatedADXL355", "SimulatedMPU6050", "Thermal",
        ]),
        // make docs: the references generated from the code (the CLI and settings references, the completions).
        .executableTarget(name: "PlumbDocs", dependencies: ["PlumbCLI"]),
        .executableTarget(name: "PlumbBench", dependencies: [
            "Accelerometers", "AccuracyBenchmark", "Contract", "Geometry", "Level", "Sampling", "SimulatedADXL345", "I2C", "MQTT",
            "PlumbSync", "SimulatedADXL355", "SimulatedMPU6050", "Vibration", "VibrationVocabulary", "Drawing", "HomeAssistant",
            "PictureRendering",
        ]),

        // MARK: Test support: libraries that only tests link
        // Shared by the geometry and level tests: an independent small matrix for building
        // orientations, and closeness checks.
        .target(name: "GeometryTesting", dependencies: ["Geometry"], path: "Tests/GeometryTesting"),
        .target(name: "MQTTTesting", dependencies: ["MQTT", "PlumbSync"], path: "Tests/MQTTTesting"),
        // Its mosquitto config templates are read from the source tree (#filePath), not bundled.
        .target(name: "BrokerHarness", dependencies: ["PlumbSync"], path: "Tests/BrokerHarness", exclude: ["Configs", "README.md"]),
        // The drivers `plumb` does not open yet, driven step by step on the real LinuxI2CBus: the CLI
        // tests run it on the fake i2c-dev (Tests/CLITests/Fixtures/fake-i2c-dev) for each chip's
        // kernel-ABI suite.
        .executableTarget(name: "ChipABIHarness", dependencies: ["Accelerometers", "I2C", "Geometry"],
                          path: "Tests/ChipABIHarness"),

        // MARK: Tests
        .testTarget(name: "GeometryTests", dependencies: ["Geometry", "GeometryTesting"]),
        .testTarget(name: "LevelTests", dependencies: ["Geometry", "GeometryTesting", "Level", "Thermal"]),
        .testTarget(name: "ThermalTests", dependencies: ["Geometry", "GeometryTesting", "Thermal"]),
        .testTarget(name: "ContractTests", dependencies: ["Contract"]),
        .testTarget(name: "ControlTests", dependencies: ["BrokerHarness", "Contract", "Control", "I2C", "Geometry", "Level", "PlumbSync"]),
        .testTarget(name: "StrictJSONTests", dependencies: ["Contract", "Geometry", "StrictJSON"]),
        .testTarget(name: "FleetTests", dependencies: ["Contract", "Fleet"]),
        .testTarget(name: "VibrationTests", dependencies: ["Vibration", "VibrationVocabulary", "Geometry"]),
        .testTarget(name: "RulerTests", dependencies: ["Contract", "Ruler", "RulerService", "Geometry", "GeometryTesting", "Settings"]),
        .testTarget(name: "DrawingTests", dependencies: ["Drawing", "PictureRendering"]),
        .testTarget(name: "HomeAssistantTests", dependencies: [
            "BrokerHarness", "Contract", "Drawing", "HomeAssistant", "Geometry", "Level", "PictureRendering", "Settings",
            "Vibration", "VibrationVocabulary",
        ]),
        // PlumbCLI for the --sim-* flags, whose effects are checked through each chip's real driver.
        .testTarget(name: "AccelerometerTests", dependencies: [
            "Accelerometers", "SimulatedADXL345", "SimulatedADXL355", "SimulatedChips", "I2C", "PlumbCLI", "Geometry", "Level", "Sampling",
            "PlumbSync", "SimulatedMPU6050", "Thermal",
        ]),
        // The calibration tests check the stored file against the simulated chip's true errors.
        .testTarget(name: "CLITests", dependencies: [
            "BrokerHarness", "Accelerometers", "Configuration", "Persistence", "Geometry", "Level", "PlumbCLI", "Sampling", "Settings",
            "SimulatedADXL345",
        ], resources: [.copy("Fixtures")]),
        .testTarget(name: "MQTTTests", dependencies: ["MQTT", "MQTTTesting", "BrokerHarness"]),
        .testTarget(name: "ConfigurationTests", dependencies: [
            "Accelerometers", "BrokerHarness", "Configuration", "Contract", "Persistence", "Geometry", "GeometryTesting", "Level", "Settings", "Thermal", "Vibration",
            "VibrationVocabulary",
        ]),
        .testTarget(name: "CalibratingTests", dependencies: ["Accelerometers", "Calibrating", "Persistence", "Geometry", "Level"]),
        .testTarget(name: "AccuracyBenchmarkTests", dependencies: [
            "Accelerometers", "AccuracyBenchmark", "Persistence", "Geometry", "Level", "SimulatedADXL345", "SimulatedADXL355",
            "SimulatedMPU6050",
        ]),
        .testTarget(name: "AgentTests", dependencies: [
            "Agent", "Configuration", "Contract", "Drawing", "HomeAssistant", "MQTT", "MQTTTesting", "BrokerHarness", "Persistence", "Geometry", "Level",
            "PictureRendering",
            "Settings", "SimulatedADXL345", "Accelerometers", "Sampling", "Thermal", "VibrationVocabulary",
        ]),
    ]
)

// MARK: Fuzz targets (issue 12), only for scripts/fuzz.sh
// Declared only when PLUMB_FUZZ=1, which scripts/fuzz.sh sets along with its own scratch path
// (.build/fuzz) and the libFuzzer and ASan flags: the normal build and its cache never see them.
if Context.environment["PLUMB_FUZZ"] == "1" {
    package.targets += [
        .systemLibrary(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "Fuzz/FuzzSupport"),
        .executableTarget(name: "FuzzConfigJSON", dependencies: ["FuzzSupport", "Settings"], path: "Fuzz/ConfigJSON"),
        .executableTarget(name: "FuzzConfigKey", dependencies: ["FuzzSupport", "Settings"], path: "Fuzz/ConfigKey"),
        .executableTarget(name: "FuzzYAML", dependencies: ["Configuration", "FuzzSupport"], path: "Fuzz/YAML"),
        .executableTarget(name: "FuzzRulerService", dependencies: [
            "Contract", "FuzzSupport", "Geometry", "RulerService",
        ], path: "Fuzz/RulerService"),
        .executableTarget(name: "FuzzLength", dependencies: ["FuzzSupport", "Ruler"], path: "Fuzz/Length"),
        .executableTarget(name: "FuzzAngle", dependencies: ["FuzzSupport", "Geometry"], path: "Fuzz/Angle"),
    ]
}

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSettings
}
