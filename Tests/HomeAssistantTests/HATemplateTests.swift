import BrokerHarness
import Contract
import Foundation
import HomeAssistant
import Settings
import Testing

/// The templates discovery publishes, rendered by Home Assistant's own template engine
/// (`Tests/HAConformance/ha-conformance render`) against the messages Plumb sends: what a
/// schema cannot tell, what each entity will show.
@Suite("Discovery: Home Assistant renders each template as intended")
struct HATemplateTests {
    struct Case {
        var template: String
        var payload: String
        /// What the rendering must be.
        var expected: String
        var what: String
    }

    /// The discovery configs as published, by object id.
    static func configs() throws -> [String: DecodedEntity] {
        let all = try Fixture.messages(settings: Fixture.settings()).map(Fixture.decode)
        return Dictionary(all.map { ($0.objectID, $0) }) { first, _ in first }
    }

    static func cases() throws -> [Case] {
        let configs = try configs()
        func template(_ object: String, _ key: String = "value_template") throws -> String {
            try #require(configs[object]?.string(key), "\(object) has no \(key)")
        }
        let state = #"{"roll":52.41,"pitch":-26.16,"tilt":58.6,"unit":"mm_per_m","roll_deg":3,"pitch_deg":-1.499,"tilt_deg":3.354,"uncertainty":0.05,"uncertainty_deg":0.003,"alarm":null,"temperature":24.9}"#
        let noCalibration = #"{"method":null,"date":null,"chip":null,"residual_mg":null,"calibration":null,"reversal":null,"temperature_c":null,"drift":null}"#
        let sixPoint = #"{"method":"six_point","date":"2026-12-02T15:15:25Z","residual_mg":{"rms":0.4,"max":0.47},"temperature_c":22.5}"#
        let event = #"{"type":"running_stopped","ts":"2026-12-02T15:00:00.000Z","duration_s":1834.2,"velocity_rms_mm_s":0.4}"#
        let long = String(repeating: "x", count: 300)
        let result = #"{"command":"zero","ok":false,"message":"\#(long)","event":"zero_rejected","ts":"t"}"#
        guard case .array(let availability)? = configs["velocity_rms"]?["availability"],
              case .object(let onConfig)? = availability.last, case .string(let vibrationOn)? = onConfig["value_template"]
        else { throw TestSetupError(description: "velocity_rms has no P/config availability") }
        guard case .array(let temperatureAvailability)? = configs["temperature"]?["availability"],
              case .object(let healthConfig)? = temperatureAvailability.last,
              case .string(let thermometer)? = healthConfig["value_template"]
        else { throw TestSetupError(description: "temperature has no P/health availability") }
        let health = #"{"sample_rate_hz":100,"i2c_errors":0,"temperature_age_s":null,"temperature_source":"#
        var cases: [Case] = [
            Case(template: thermometer, payload: health + #""none"}"#, expected: "offline", what: "No thermometer: unavailable"),
            Case(template: thermometer, payload: health + #""chip"}"#, expected: "online", what: "The chip's sensor: available"),
            Case(template: thermometer, payload: health + #""mqtt:shop/t"}"#, expected: "online", what: "A thermometer over MQTT"),
            Case(template: try template("tilt_deg"), payload: state, expected: "3.354", what: "Tilt reads degrees in mm/m"),
            Case(template: try template("roll_deg"), payload: state, expected: "3", what: "Roll"),
            Case(template: try template("uncertainty_deg"), payload: state, expected: "0.003", what: "Uncertainty"),
            Case(template: try template("slope"), payload: state, expected: "58.6", what: "Slope reads the unit's tilt"),
            Case(template: try template("alarm"), payload: state, expected: "None", what: "Alarm unknown while null"),
            Case(template: try template("calibration"), payload: noCalibration, expected: "none", what: "Calibration: none"),
            Case(template: try template("calibration"), payload: sixPoint, expected: "six_point", what: "Calibration: the method"),
            Case(template: try template("calibration", "json_attributes_template"), payload: noCalibration,
                 expected: #"{"date": null, "residual_max_mg": null, "residual_rms_mg": null, "temperature_c": null}"#,
                 what: "Calibration's attributes with none"),
            Case(template: try template("last_result"), payload: result, expected: String(long.prefix(255)),
                 what: "Last result: a state of 255 characters at most"),
            Case(template: try template("event"), payload: event,
                 expected: #"{"duration_s": 1834.2, "event_type": "running_stopped", "ts": "2026-12-02T15:00:00.000Z", "type": "running_stopped", "velocity_rms_mm_s": 0.4}"#,
                 what: "The event entity: the type as event_type, the details as attributes"),
            Case(template: try template("velocity_rms"), payload: #"{"velocity_rms_mm_s":1.25,"running":true}"#, expected: "1.25",
                 what: "Velocity RMS"),
            Case(template: try template("velocity_rms"), payload: "", expected: "None", what: "P/vibration cleared: unknown, no error"),
            Case(template: try template("running"), payload: #"{"running":true}"#, expected: "ON", what: "Running"),
            Case(template: try template("running"), payload: "", expected: "None", what: "P/vibration cleared: running unknown"),
            Case(template: vibrationOn, payload: #"{"vibration":false,"name":"x"}"#, expected: "offline", what: "Vibration off: unavailable"),
            Case(template: vibrationOn, payload: #"{"vibration":true}"#, expected: "online", what: "Vibration on: available"),
        ]
        for event in [EventType.runningStopped, .levelLeft] {
            cases.append(Case(template: try template(event.rawValue), payload: #"{"type":"\#(event.rawValue)","ts":"t"}"#,
                              expected: event.rawValue, what: "the \(event.rawValue) trigger matches its payload"))
        }
        return cases
    }

    @Test("Every template renders what the entity must show")
    func templatesRender() async throws {
        guard FileManager.default.isExecutableFile(atPath: HAConformanceTests.checker.path) else {
            Issue.record("the conformance check is missing at \(HAConformanceTests.checker.path); restore Tests/HAConformance")
            return
        }
        // A control that must fail, so a renderer that renders nothing cannot pass.
        let cases = try Self.cases()
        let rendered = try await renderWithHomeAssistant(cases.map { ($0.template, $0.payload) } + [("{{ value_json.missing.deeper }}", "{}")])
        #expect(rendered.last == .some(nil), "a broken template rendered: \(String(describing: rendered.last))")
        for (item, text) in zip(cases, rendered) {
            #expect(text == item.expected, "\(item.what): \(text ?? "failed to render")")
        }
    }
}
