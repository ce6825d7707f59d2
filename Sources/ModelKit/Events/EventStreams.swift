extension ModelNode {
    /// The events equal to `event` sent to this model.
    ///
    /// ```swift
    /// func onActivate() {
    ///     node.forEach(node.event(of: AppEvent.logout)) { _ in
    ///         user = nil
    ///     }
    /// }
    /// ```
    ///
    /// The stream listens from the moment it is created and ends when the model is removed.
    @inlinable
    public func event<Event: Sendable & Equatable>(
        of event: Event,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ModelStream<Event> {
        eventStream(api: "event(of:)", location: (fileID, filePath, line, column), wantsSender: false) { sent, _ in
            guard let sent = EventMatch.cast(sent, to: Event.self), sent == event else { return nil }
            return sent
        }
    }

    /// The events of type `type` sent to this model.
    @inlinable
    public func event<Event: Sendable>(
        ofType type: Event.Type,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ModelStream<Event> {
        eventStream(api: "event(ofType:)", location: (fileID, filePath, line, column), wantsSender: false) { sent, _ in
            EventMatch.cast(sent, to: Event.self)
        }
    }

    /// The events models of type `type` send (their own `Event` type) that reach this model, with
    /// the model that sent each.
    ///
    /// ```swift
    /// node.forEach(node.event(fromType: StandupDetail.self)) { event, detail in
    ///     switch event {
    ///     case .deleteStandup: standupsList.remove(detail)
    ///     case .startMeeting: path.append(.record(RecordMeeting(standup: detail.standup)))
    ///     }
    /// }
    /// ```
    @inlinable
    public func event<Sender: Model>(
        fromType type: Sender.Type,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ModelStream<(event: Sender.Event, model: Sender)> {
        eventStream(api: "event(fromType:)", location: (fileID, filePath, line, column), wantsSender: true) { sent, sender in
            guard let model = EventMatch.cast(sender, to: Sender.self),
                  let event = EventMatch.cast(sent, to: Sender.Event.self)
            else { return nil }
            return (event: event, model: model)
        }
    }

    /// The models of type `type` that send `event` (their own `Event` type, matched with `==`) to
    /// this model, one element per event sent.
    ///
    /// ```swift
    /// node.forEach(node.event(of: .onNext, fromType: SignUpStep.self)) { step in
    ///     path.append(step.next())
    /// }
    /// ```
    @inlinable
    public func event<Sender: Model>(
        of event: Sender.Event,
        fromType type: Sender.Type,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ModelStream<Sender> where Sender.Event: Equatable {
        eventStream(api: "event(of:fromType:)", location: (fileID, filePath, line, column), wantsSender: true) { sent, sender in
            guard let model = EventMatch.cast(sender, to: Sender.self),
                  let sentEvent = EventMatch.cast(sent, to: Sender.Event.self), sentEvent == event
            else { return nil }
            return model
        }
    }

    /// Built inline in the caller, so that matching and yielding are specialized for its types.
    /// `match` gets the sending model only when `wantsSender`, else `()`.
    @inlinable
    func eventStream<Element: Sendable>(
        api: String,
        location: (StaticString, StaticString, UInt, UInt),
        wantsSender: Bool,
        match: @escaping @Sendable (_ event: Any, _ sender: Any) -> Element?
    ) -> ModelStream<Element> {
        let (stream, storage) = ModelStream<Element>.make()
        guard let context = context(for: api, fileID: location.0, filePath: location.1, line: location.2, column: location.3) else {
            storage.finish()
            return stream
        }
        let listener = EventListener(
            wantsSender: wantsSender,
            onEvent: { event, sender in
                if let element = match(event, sender) { storage.yield(element) }
            },
            onFinish: { storage.finish() }
        )
        // Strong captures: the cycle through the storage ends when the stream terminates, which it
        // does when it is dropped, when its consumer is cancelled, or when the model's teardown
        // finishes it.
        storage.onTermination {
            context.removeEventListener(listener)
        }
        if !context.addEventListener(listener) {
            storage.finish()
        }
        return stream
    }
}

/// Matching a sent event (or its sender) to the type a listener wants.
@usableFromInline
enum EventMatch {
    /// `value` as a `Target`, like `value as? Target`. When `value` is exactly a `Target` (the usual
    /// case: a listener of the type that was sent) it is taken out of its existential directly,
    /// without the runtime's dynamic cast, which searches conversions and costs a few hundred
    /// instructions per event.
    @inlinable
    static func cast<Target>(_ value: Any, to _: Target.Type) -> Target? {
        // The opened type is compared, not `type(of: value)`, which looks through an existential
        // boxed in `value` (a model sent as `any Model`) where opening takes off one level only.
        func exactly<Opened>(_ opened: Opened) -> Target? {
            guard ObjectIdentifier(Opened.self) == ObjectIdentifier(Target.self) else { return nil }
            // Safety: `Opened` is `Target` itself, so this reinterprets a value as its own type.
            return unsafeBitCast(opened, to: Target.self)
        }
        return _openExistential(value, do: exactly) ?? value as? Target
    }
}
