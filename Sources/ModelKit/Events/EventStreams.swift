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
        eventStream(api: "event(of:)", location: (fileID, filePath, line, column)) { sent, _ in
            guard let sent = sent as? Event, sent == event else { return nil }
            return sent
        }
    }

    /// The events of type `type` sent to this model.
    @inlinable
    public func event<Event: Sendable>(
        ofType type: Event.Type,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) -> ModelStream<Event> {
        eventStream(api: "event(ofType:)", location: (fileID, filePath, line, column)) { sent, _ in
            sent as? Event
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
        eventStream(api: "event(fromType:)", location: (fileID, filePath, line, column)) { sent, sender in
            guard let model = sender as? Sender, let event = sent as? Sender.Event else { return nil }
            return (event: event, model: model)
        }
    }

    /// Built inline in the caller, so that matching and yielding are specialized for its types.
    @inlinable
    func eventStream<Element: Sendable>(
        api: String,
        location: (StaticString, StaticString, UInt, UInt),
        match: @escaping @Sendable (_ event: Any, _ sender: Any) -> Element?
    ) -> ModelStream<Element> {
        let (stream, storage) = ModelStream<Element>.make()
        guard let context = context(for: api, fileID: location.0, filePath: location.1, line: location.2, column: location.3) else {
            storage.finish()
            return stream
        }
        let listener = EventListener(
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
