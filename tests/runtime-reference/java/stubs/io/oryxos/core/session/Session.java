package io.oryxos.core.session;

/** Stand-in for the runtime's Session: the memory facade reads only the agent (profile) name. */
public class Session {
  private final String profileName;

  public Session(String sessionId, String profileName) {
    this.profileName = profileName;
  }

  public String profileName() {
    return profileName;
  }
}
