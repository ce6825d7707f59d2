@testable import Standups

extension Standup {
    /// Three attendees with two seconds each: a meeting short enough to follow tick by tick.
    static let sixSeconds = Standup(
        id: Standup.ID(),
        attendees: [
            Attendee(id: Attendee.ID(), name: "Blob"),
            Attendee(id: Attendee.ID(), name: "Blob Jr"),
            Attendee(id: Attendee.ID(), name: "Blob Sr"),
        ],
        duration: .seconds(6),
        title: "Engineering"
    )
}
