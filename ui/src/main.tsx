import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

import { AppRoot } from "./App";
import { selectBackend } from "./backend/select";
import "./styles/index.css";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <AppRoot backend={selectBackend()} />
  </StrictMode>,
);
