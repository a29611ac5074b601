package jakarta.persistence;

public @interface PrePersist {}
