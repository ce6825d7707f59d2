import ModelKit

/// Opens the system settings where the user can allow speech recognition.
///
/// On iOS this would open the app's page of the Settings app; elsewhere there is no such page and
/// it does nothing. There is no `testValue`: a test that reaches it overrides it.
///
/// ```swift
/// node.task { await node.openSettings() }
/// ```
enum OpenSettingsKey: DependencyKey {
    static let liveValue: @Sendable () async -> Void = {}
}

extension DependencyValues {
    var openSettings: @Sendable () async -> Void {
        get { self[OpenSettingsKey.self] }
        set { self[OpenSettingsKey.self] = newValue }
    }
}
