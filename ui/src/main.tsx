import "./styles/index.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

import { AppRoot } from "./App";
import { selectBackend } from "./backend/select";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <AppRoot backend={selectBackend()} />
  </StrictMode>,
);
