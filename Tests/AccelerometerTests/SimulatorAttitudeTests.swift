import Foundation
import Geometry
import Level
import SimulatedADXL345
import Testing

/// The attitude script (`--sim-script`): its grammar, every refusal, and the attitudes it plays.
@Suite("Simulated attitudes and scripts")
struct SimulatorAttitudeTests {
    private func close(_ a: Vector3, _ b: Vector3, _ tolerance: Double = 1e-12) -> Bool {
        (a - b).magnitude <= tolerance
    }

    private func angleBetween(_ a: Vector3, _ b: Vector3) -> Double {
        atan2(a.cross(b).magnitude, a.dot(b)) * 180 / .pi
    }

    // MARK: Poses

    @Test func everyFaceReadsOneGAlongItsAxis() {
        for face in Face.allCases {
            #expect(close(SimulatedPose(face: face).gravity, face.gravity), "\(face)")
        }
    }

    @Test func rollAndPitchFollowPlumbsConventions() {
        let pose = SimulatedPose(roll: Angle(degrees: 3), pitch: Angle(degrees: -2))
        let attitude = Attitude(gravity: pose.gravity)
        #expect(abs(attitude.roll.degrees - 3) < 1e-9 && abs(attitude.pitch.degrees + 2) < 1e-9)
    }

    @Test func aRollOnAFaceTipsItThatFarFromTheAxis() {
        for face in Face.allCases {
            let gravity = SimulatedPose(face: face, roll: Angle(degrees: 15)).gravity
            #expect(abs(angleBetween(gravity, face.gravity) - 15) < 1e-9, "\(face)")
            #expect(abs(gravity.magnitude - 1) < 1e-12)
        }
    }

    @Test func aHalfTurnFlipsTheSurfaceTiltInTheDeviceFrame() {
        let surface = (roll: Angle(degrees: 0.3), pitch: Angle(degrees: -0.2))
        let first = SimulatedPose(surfaceRoll: surface.roll, surfacePitch: surface.pitch).gravity
        let turned = SimulatedPose(turn: Angle(degrees: 180), surfaceRoll: surface.roll, surfacePitch: surface.pitch).gravity
        #expect(close(first, Attitude.gravity(roll: surface.roll, pitch: surface.pitch)))
        #expect(close(turned, Vector3(x: -first.x, y: -first.y, z: first.z)))
        // A quarter turn swaps the axes: what was along x is now along −y.
        let quarter = SimulatedPose(turn: Angle(degrees: 90), surfaceRoll: surface.roll, surfacePitch: surface.pitch).gravity
        #expect(close(quarter, Vector3(x: first.y, y: -first.x, z: first.z)))
    }

    // MARK: Scripts

    @Test func aScriptHoldsMovesAndThenHoldsItsLastAttitude() throws {
        let script = try AttitudeScript(parsing: "face:+z 3s, face:-x 2s,roll:10 2s")
        #expect(script.steps.count == 3 && script.duration == 7)
        #expect(close(script.gravity(atElapsed: 0), Face.plusZ.gravity))
        #expect(close(script.gravity(atElapsed: 2.9), Face.plusZ.gravity))
        // The move: neither face, and lifted (the magnitude is not 1 g a quarter of the way).
        let moving = script.gravity(atElapsed: 3 + AttitudeScript.transition / 4)
        #expect(abs(moving.magnitude - (1 + AttitudeScript.liftG)) < 1e-9)
        #expect(abs(angleBetween(moving, Face.plusZ.gravity) - 22.5) < 1e-6)
        #expect(close(script.gravity(atElapsed: 4), Face.minusX.gravity))
        // roll:10 keeps face -x (parts not named carry over).
        let last = SimulatedPose(face: .minusX, roll: Angle(degrees: 10)).gravity
        #expect(close(script.gravity(atElapsed: 6.5), last))
        #expect(close(script.gravity(atElapsed: 1e6), last))
    }

    @Test func aTumbleToTheOppositeFaceSwingsOverRatherThanThroughZero() throws {
        let script = try AttitudeScript(parsing: "face:+z 2s, face:-z 2s")
        let halfway = script.gravity(atElapsed: 2 + AttitudeScript.transition / 2)
        #expect(abs(halfway.magnitude - 1) < 1e-9)
        #expect(abs(angleBetween(halfway, Face.plusZ.gravity) - 90) < 1e-6)
    }

    @Test func aTurnOnALevelSurfaceStillShowsTheHandling() throws {
        let script = try AttitudeScript(parsing: "2s, turn:180 2s")
        #expect(close(script.gravity(atElapsed: 1), script.gravity(atElapsed: 3)))
        #expect(abs(script.gravity(atElapsed: 2 + AttitudeScript.transition / 4).magnitude - 1.1) < 1e-9)
    }

    @Test func theSurfaceWordSetsBothAngles() throws {
        let script = try AttitudeScript(parsing: "surface:0.3/-0.2 turn:0 4s, turn:180 4s")
        let pose = script.steps[1].pose
        #expect(pose.surfaceRoll == Angle(degrees: 0.3) && pose.surfacePitch == Angle(degrees: -0.2))
        #expect(pose.turn == Angle(degrees: 180))
    }

    @Test(arguments: [
        ("", "step 1 is empty"),
        ("face:+z 3s,", "step 2 is empty"),
        ("face:+w 3s", "step 1 has face:+w; a face is +x, -x, +y, -y, +z or -z."),
        ("face:+z", "step 1 ends with 'face:+z' and no duration; end each step with one, e.g. 'face:+z 3s'."),
        ("face:+z 3", "step 1 ends with '3'; a duration is seconds with an s"),
        ("face:+z 3 s", "step 1 has '3'; the words are face:F"),
        ("face:+z 0.5s", "step 1 lasts 0.5s; a step lasts more than 0.5 s"),
        ("face:+z 100000s", "step 1 lasts 100000s"),
        ("face:+z 3s, roll:200 3s", "step 2 has 'roll:200'; give degrees between -180 and 180."),
        ("pitch:91 3s", "step 1 has 'pitch:91'; give degrees between -90 and 90."),
        ("turn:x 3s", "step 1 has 'turn:x'; give degrees between -360 and 360."),
        ("surface:1 3s", "step 1 has 'surface:1'; the surface is surface:ROLL/PITCH"),
        ("surface:50/0 3s", "step 1 has 'surface:50/0'; give degrees between -45 and 45."),
        ("yaw:3 3s", "step 1 has 'yaw:3'; the words are face:F, roll:DEG"),
        ("roll:1 roll:2 3s", "step 1 names roll: twice; give it once."),
        ("face:+z 3s; face:-z 3s", "step 1 has '3s;'"),
    ])
    func everyMistakeIsNamed(script: String, message: String) {
        #expect(throws: AttitudeScriptError.self) { try AttitudeScript(parsing: script) }
        do {
            _ = try AttitudeScript(parsing: script)
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }

    @Test func theChipPlaysAScriptOnItsClock() throws {
        let rig = SimRig(.init(noiseXY: 0))
        rig.clock.advance(to: 100)
        rig.chip.run(try AttitudeScript(parsing: "face:+z 2s, face:+x 2s"))
        try rig.start()
        let early = try rig.collect(10, hertz: 100)
        #expect(early.last == SimSample(x: 0, y: 0, z: 256))
        rig.clock.advance(to: 103)
        _ = try rig.drain()
        let late = try rig.collect(10, hertz: 100)
        #expect(late.last == SimSample(x: 256, y: 0, z: 0))
    }
}
