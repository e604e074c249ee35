import Accelerometers
import Foundation
import Geometry
import I2C

// plumb-chip-abi: a chip's real driver on the real LinuxI2CBus, step by step, for the CLI tests'
// kernel-ABI suites (Tests/CLITests/ChipABITests.swift). The tests run it with the fake i2c-dev
// library preloaded (Tests/CLITests/Fixtures/fake-i2c-dev), which plays the chip behind the
// ioctls; `plumb` itself drives only the ADXL345 so far, so the drivers the command line does not
// open yet are driven from here.
//
// Usage: ChipABIHarness <adxl345|adxl355|mpu6050> <bus> <address> <step>…
// Steps: probe | start:<Hz>:<g> | drain:<samples> | temperature | die-temperature | selftest | stop |
//        scan | sleep:<seconds>
// temperature is the driver's readTemperature() (not on the ADXL345); die-temperature is the
// protocol's dieTemperature(), printing null for a chip without a sensor.
// drain:<n> drains every 50 ms until it has n samples (10 s at most) and prints their count, mean
// and z extremes, the drains and overruns. Each step prints one JSON object on stdout; the first failure prints {"step":…,"error":…} and
// exits 1. Arguments it cannot parse exit 2.

func emit(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ChipABIHarness: \(message)\n".utf8))
    exit(2)
}

func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return "0x" + (digits.count < 2 ? "0" : "") + digits
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 4 else { usage("expected <chip> <bus> <address> <step>…") }
guard let address = I2CAddress(parsing: arguments[2]) else { usage("bad address \(arguments[2])") }

let bus: LinuxI2CBus
do {
    bus = try LinuxI2CBus(path: arguments[1])
} catch {
    emit(["step": "open", "error": "\(error)"])
    exit(1)
}

let chip: any Accelerometer
let description: ChipDescription
let temperature: () throws(SensorError) -> Double
switch arguments[0] {
case "adxl345":
    (chip, description) = (ADXL345(bus: bus, address: address), ADXL345.description)
    temperature = { () throws(SensorError) -> Double in usage("the ADXL345 has no temperature step; use die-temperature") }
case "adxl355":
    let adxl355 = ADXL355(bus: bus, address: address)
    (chip, description) = (adxl355, ADXL355.description)
    temperature = adxl355.readTemperature
case "mpu6050":
    let mpu = MPU6050(bus: bus, address: address)
    (chip, description) = (mpu, MPU6050.description)
    temperature = mpu.readTemperature
default:
    usage("unknown chip \(arguments[0])")
}

func run(_ step: String) throws(SensorError) {
    let parts = step.split(separator: ":").map(String.init)
    switch parts[0] {
    case "probe":
        let identity = try chip.probe()
        var object: [String: Any] = ["step": "probe", "model": identity.model, "device_id": hex(identity.deviceID),
                                     "mode": bus.mode.rawValue]
        if let warning = (chip as? MPU6050)?.warning { object["warning"] = warning }
        emit(object)
    case "start":
        guard parts.count == 3, let hertz = Double(parts[1]), let range = Int(parts[2]) else { usage("bad step \(step)") }
        let settings = try chip.start(SamplingRequest(rateHz: hertz, rangeG: range))
        emit(["step": "start", "rate_hz": settings.rateHz, "range_g": settings.rangeG, "watermark": settings.watermark,
              "buffer_capacity": settings.bufferCapacity])
    case "drain":
        guard parts.count == 2, let wanted = Int(parts[1]), wanted > 0 else { usage("bad step \(step)") }
        var samples: [Vector3] = []
        var drains = 0, overruns = 0, clipped = 0
        let deadline = Date().addingTimeInterval(10)
        while samples.count < wanted, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            let report = try chip.drain(into: &samples)
            drains += 1
            if report.overrun { overruns += 1 }
            clipped += report.clipped
        }
        let count = Double(max(1, samples.count))
        let mean = samples.reduce(Vector3(x: 0, y: 0, z: 0)) { $0 + $1 } * (1 / count)
        emit(["step": "drain", "samples": samples.count, "drains": drains, "overruns": overruns, "clipped": clipped,
              "mean": ["x": mean.x, "y": mean.y, "z": mean.z],
              "min_z": samples.map(\.z).min() ?? 0, "max_z": samples.map(\.z).max() ?? 0, "mode": bus.mode.rawValue])
    case "temperature":
        emit(["step": "temperature", "celsius": try temperature()])
    case "die-temperature":
        emit(["step": "die-temperature", "celsius": try chip.dieTemperature().map { $0 as Any } ?? NSNull()])
    case "stop":
        try chip.stop()
        emit(["step": "stop"])
    case "selftest":
        let report = try chip.selfTest(supplyVoltage: 3.3)
        emit(["step": "selftest", "model": report.model, "passed": report.passed, "samples_per_mean": report.samplesPerMean,
              "axes": report.axes.map { axis in
                  ["name": axis.name, "off": axis.off, "on": axis.on, "delta": axis.delta, "minimum": axis.minimum,
                   "maximum": axis.maximum, "passed": axis.passed] as [String: Any]
              }])
    case "sleep":
        guard parts.count == 2, let seconds = Double(parts[1]), seconds >= 0 else { usage("bad step \(step)") }
        Thread.sleep(forTimeInterval: seconds)
        emit(["step": "sleep"])
    case "scan":
        let findings = ChipScan.scan(bus, catalog: [description])
        emit(["step": "scan", "chips": findings.map { finding in
            ["address": finding.address.description, "model": finding.chip.model,
             "identification": finding.identification.map(hex), "clone": finding.isClone, "mode": finding.mode.rawValue]
        }])
    default:
        usage("unknown step \(step)")
    }
}

for step in arguments.dropFirst(3) {
    do {
        try run(step)
    } catch {
        emit(["step": step, "error": "\(error)"])
        exit(1)
    }
}
