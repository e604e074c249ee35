import Contract
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif
import Geometry
import RulerService

/// The service under test, from PLUMB_FUZZ_SERVICE (scripts/fuzz.sh runs one per service, each
/// with its own corpus); an unset or unknown name is a usage error, not a silent default.
let service: RulerServiceName = {
    guard let name = getenv("PLUMB_FUZZ_SERVICE").map({ String(cString: $0) }),
          let service = RulerServiceName(rawValue: name) else {
        let message = "set PLUMB_FUZZ_SERVICE to one of: \(RulerServiceName.list)\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(2)
    }
    return service
}()

/// The readings a request may meet: none, flat, slightly and steeply tilted, on its side (the
/// steepest tilt), upside down, moving, stale, and in each length unit. Which one is
/// chosen from the payload's bytes, so a saved input replays exactly.
let readings: [CurrentReading?] = [
    nil,
    CurrentReading(levelGravity: Vector3(x: 0, y: 0, z: 1), standardError: Vector3(x: 0, y: 0, z: 0), age: 0,
                   lengthUnit: .mm, isStable: true),
    CurrentReading(levelGravity: Vector3(x: 0.01, y: -0.02, z: 0.9997), standardError: Vector3(x: 1e-5, y: 1e-5, z: 1e-5),
                   age: 0.2, lengthUnit: .mm, isStable: true),
    CurrentReading(levelGravity: Vector3(x: 0.7071, y: 0, z: 0.7071), standardError: Vector3(x: 0.01, y: 0.01, z: 0.01),
                   age: 1, lengthUnit: .cm, isStable: false),
    CurrentReading(levelGravity: Vector3(x: 1, y: 0, z: 0), standardError: Vector3(x: 0, y: 0, z: 0), age: 0,
                   lengthUnit: .m, isStable: true),
    CurrentReading(levelGravity: Vector3(x: 0, y: 0.3, z: -0.95), standardError: Vector3(x: 0.5, y: 0.5, z: 0.5),
                   age: 3600, lengthUnit: .in, isStable: false),
    CurrentReading(levelGravity: Vector3(x: 0.001, y: 0.002, z: 1.0), standardError: Vector3(x: 0, y: 0, z: 0), age: 0,
                   lengthUnit: .ft, isStable: true),
]

// One request to one service: through the enum and through the topic's name (alternating), and
// the cheap transaction reader the agent uses for `busy` replies.
runFuzzer { data, count in
    let payload = inputBytes(data, count)
    let sum = payload.reduce(0) { $0 &+ Int($1) }
    let reading = readings[sum % readings.count]
    let handler = RulerRequestHandler()
    let reply = sum.isMultiple(of: 2)
        ? handler.reply(to: service, payload: payload, reading: reading)
        : handler.reply(service: service.rawValue, payload: payload, reading: reading)
    _ = reply.bytes
    _ = RulerRequestHandler.transaction(in: payload)
    return 0
}
