import Foundation

/// A recurring meeting: who attends, how long it lasts, and the meetings held so far.
///
/// A plain value (not a model): models hold it in their tracked state, and ``DataManager`` stores
/// arrays of it as JSON.
struct Standup: Hashable, Identifiable, Codable, Sendable {
    typealias ID = TaggedID<Self>

    let id: ID
    var attendees: [Attendee] = []
    var duration: Duration = .seconds(60 * 5)
    var meetings: [Meeting] = []
    var theme: Theme = .bubblegum
    var title = ""

    /// Each attendee's share of the meeting.
    var durationPerAttendee: Duration {
        attendees.isEmpty ? duration : duration / attendees.count
    }
}

extension Standup {
    private enum CodingKeys: String, CodingKey {
        case id, attendees, duration, meetings, theme, title
    }

    /// Decodes a standup; `duration` is in seconds, and only `id` is required.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(ID.self, forKey: .id)
        attendees = try container.decodeIfPresent([Attendee].self, forKey: .attendees) ?? []
        let seconds = try container.decodeIfPresent(Double.self, forKey: .duration)
        duration = seconds.map { .seconds($0) } ?? .seconds(60 * 5)
        meetings = try container.decodeIfPresent([Meeting].self, forKey: .meetings) ?? []
        theme = try container.decodeIfPresent(Theme.self, forKey: .theme) ?? .bubblegum
        title = try container.decodeIfPresent(String.self, forKey: .title) ?? ""
    }

    /// Encodes the standup, its duration as a number of seconds (`Duration`'s own encoding is a pair
    /// of integers counting attoseconds).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(attendees, forKey: .attendees)
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        try container.encode(seconds, forKey: .duration)
        try container.encode(meetings, forKey: .meetings)
        try container.encode(theme, forKey: .theme)
        try container.encode(title, forKey: .title)
    }
}

/// Someone who attends a standup.
struct Attendee: Hashable, Identifiable, Codable, Sendable {
    typealias ID = TaggedID<Self>

    let id: ID
    var name = ""
}

/// A meeting that was held, with what was said.
struct Meeting: Hashable, Identifiable, Codable, Sendable {
    typealias ID = TaggedID<Self>

    let id: ID
    let date: Date
    var transcript: String
}

/// The color theme of a standup.
enum Theme: String, CaseIterable, Hashable, Identifiable, Codable, Sendable {
    case bubblegum, buttercup, indigo, lavender, magenta, navy, orange, oxblood, periwinkle, poppy,
         purple, seafoam, sky, tan, teal, yellow

    var id: Self { self }
    var name: String { rawValue.capitalized }
}

/// A UUID that identifies one kind of value: `Standup.ID` and `Attendee.ID` are different types.
///
/// Encoded as a plain UUID string.
///
/// ```swift
/// let id = Standup.ID(UUID())
/// let fresh = Attendee.ID()   // a new random id
/// ```
struct TaggedID<Tag>: Hashable, Sendable, Codable, CustomStringConvertible {
    var rawValue: UUID

    init(_ rawValue: UUID = UUID()) {
        self.rawValue = rawValue
    }

    init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UUID.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    var description: String { rawValue.uuidString }
}

extension Standup {
    /// A standup with six attendees, one minute long, and one past meeting.
    static let mock = Standup(
        id: Standup.ID(),
        attendees: [
            Attendee(id: Attendee.ID(), name: "Blob"),
            Attendee(id: Attendee.ID(), name: "Blob Jr"),
            Attendee(id: Attendee.ID(), name: "Blob Sr"),
            Attendee(id: Attendee.ID(), name: "Blob Esq"),
            Attendee(id: Attendee.ID(), name: "Blob III"),
            Attendee(id: Attendee.ID(), name: "Blob I"),
        ],
        duration: .seconds(60),
        meetings: [
            Meeting(
                id: Meeting.ID(),
                date: Date().addingTimeInterval(-60 * 60 * 24 * 7),
                transcript: """
                    Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor \
                    incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud \
                    exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.
                    """
            )
        ],
        theme: .orange,
        title: "Design"
    )

    /// A ten-minute standup with two attendees.
    static let engineeringMock = Standup(
        id: Standup.ID(),
        attendees: [
            Attendee(id: Attendee.ID(), name: "Blob"),
            Attendee(id: Attendee.ID(), name: "Blob Jr"),
        ],
        duration: .seconds(60 * 10),
        theme: .periwinkle,
        title: "Engineering"
    )

    /// A thirty-minute standup with two attendees.
    static let designMock = Standup(
        id: Standup.ID(),
        attendees: [
            Attendee(id: Attendee.ID(), name: "Blob Sr"),
            Attendee(id: Attendee.ID(), name: "Blob Jr"),
        ],
        duration: .seconds(60 * 30),
        theme: .poppy,
        title: "Product"
    )
}
