package jakarta.persistence;

public @interface Id {}
