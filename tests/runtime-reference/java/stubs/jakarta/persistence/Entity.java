package jakarta.persistence;

public @interface Entity {}
