import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { BackendError } from "../backend";
import { I18nProvider } from "../i18n";
import { ErrorState } from "./States";

function show(lang: "en" | "zh", error: unknown) {
  return render(
    <I18nProvider lang={lang}>
      <ErrorState error={error} />
    </I18nProvider>,
  );
}

describe("ErrorState", () => {
  it("leads with the code's headline in the user's language, the technical message behind Details", () => {
    const error = new BackendError("agent_not_found", "agent nope: no folder /home/linxiao/.oryxos/agents/nope");
    show("en", error);
    expect(screen.getByTestId("error-headline")).toHaveTextContent("This agent does not exist");
    expect(screen.getByTestId("error-code")).toHaveTextContent("agent_not_found");
    const details = screen.getByTestId("error-message").closest("details")!;
    expect(details).not.toHaveAttribute("open");
    expect(details.querySelector("summary")).toHaveTextContent("Details");
    fireEvent.click(details.querySelector("summary")!);
    expect(screen.getByTestId("error-message")).toHaveTextContent("no folder /home/linxiao/.oryxos/agents/nope");
  });

  it("speaks Chinese, keeping the code and the message as sent", () => {
    show("zh", new BackendError("backend_unavailable", "mem0 at http://127.0.0.1:9 is unreachable"));
    expect(screen.getByTestId("error-headline")).toHaveTextContent("无法连接记忆后端或控制台服务");
    expect(screen.getByTestId("error-code")).toHaveTextContent("backend_unavailable");
    expect(screen.getByText("详细信息")).toBeInTheDocument();
    expect(screen.getByTestId("error-message")).toHaveTextContent("mem0 at http://127.0.0.1:9 is unreachable");
  });

  it("shows an error that is not the console's as internal", () => {
    show("en", new TypeError("x is undefined"));
    expect(screen.getByTestId("error-code")).toHaveTextContent("internal");
    expect(screen.getByTestId("error-headline")).toHaveTextContent("Something went wrong inside the console");
  });
});
