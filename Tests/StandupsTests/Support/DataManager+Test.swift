import Foundation
@testable import Standups

extension DataManager {
    /// The app's in-memory ``DataManager/mock(initialData:)``, holding `standups` as the app saves them.
    static func mock(_ standups: [Standup]) -> DataManager {
        // Encoding these plain values cannot fail.
        .mock(initialData: try! StandupsFile.encode(standups))
    }

    /// `base`, with each save also handed, decoded, to `onSave` (a test probe, say).
    static func reportingSaves(of base: DataManager, to onSave: @escaping @Sendable ([Standup]) -> Void) -> DataManager {
        DataManager(
            load: base.load,
            save: { data, url in
                try onSave(StandupsFile.decode(data))
                try await base.save(data, url)
            },
            move: base.move
        )
    }
}
