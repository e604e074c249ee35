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
    ],
    targets: [
        // MARK: C headers from the system, never re-declared by hand
        .systemLibrary(name: "CI2CDev", path: "Sources/CI2CDev"),

        // MARK: Pure domain: value types, no I/O
        .target(name: "PlumbDomain"),

        // MARK: Plumbing shared by the I/O modules
        .target(name: "PlumbSync"),

        // MARK: Hardware, behind small protocols
        .target(name: "I2C", dependencies: ["CI2CDev", "PlumbSync"]),
        .target(name: "Accelerometers", dependencies: ["I2C", "PlumbDomain"]),
        .target(name: "SimulatedADXL345", dependencies: ["I2C", "Accelerometers", "PlumbDomain", "PlumbSync"]),

        // MARK: The pipeline: samples to readings
        .target(name: "Sampling", dependencies: ["Accelerometers", "PlumbDomain", "I2C"]),

        // MARK: Command line
        .target(name: "PlumbCLI", dependencies: [
            "Accelerometers", "I2C", "PlumbDomain", "Sampling", "SimulatedADXL345", "PlumbSync",
        ]),
        .executableTarget(name: "plumb", dependencies: ["PlumbCLI"]),
        .executableTarget(name: "PlumbBench", dependencies: [
            "Accelerometers", "PlumbDomain", "Sampling", "SimulatedADXL345", "I2C",
        ]),

        // MARK: Tests
        .testTarget(name: "PlumbDomainTests", dependencies: ["PlumbDomain"]),
        .testTarget(name: "AccelerometerTests", dependencies: [
            "Accelerometers", "SimulatedADXL345", "I2C", "PlumbDomain", "Sampling", "PlumbSync",
        ]),
        .testTarget(name: "CLITests", dependencies: [], resources: [.copy("Fixtures")]),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSettings
}
